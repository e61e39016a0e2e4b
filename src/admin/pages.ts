/**
 * The admin face's server-rendered pages: sign-in, its second step, the account page and the
 * recovery codes. Plain HTML forms (they work without JavaScript), every string from the message
 * catalogue (messages.ts), labels on every field, errors in a `role="alert"` region tied to the
 * fields they are about, a visible focus ring, one column that fits 390 px.
 *
 * @example
 *   reply.type('text/html; charset=UTF-8').send(loginPage(m, { action: '/admin/login' }));
 */
import type { Messages } from './messages.js';

/** Escape text for HTML content and attribute values. */
export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2327;background:#f0f0f1}
main{max-width:40rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid #c3c4c7;border-radius:4px;padding:1.25rem;margin:1rem 0}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:0 0 .75rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password]{width:100%;font:inherit;padding:.5rem;border:1px solid #646970;border-radius:4px;background:#fff;color:#1d2327}
button{font:inherit;padding:.5rem 1rem;margin:.75rem .5rem 0 0;border-radius:4px;border:1px solid #135e96;background:#2271b1;color:#fff;cursor:pointer;min-height:44px}
button.secondary{background:#fff;color:#135e96}
button.danger{background:#fff;color:#b32d2e;border-color:#b32d2e}
a{color:#135e96}
:focus-visible{outline:3px solid #1d2327;outline-offset:2px;box-shadow:0 0 0 5px #fff}
.error{border-left:4px solid #b32d2e;background:#fcf0f1;padding:.5rem .75rem;margin:0 0 .75rem}
.notice{border-left:4px solid #00a32a;background:#edfaef;padding:.5rem .75rem;margin:0 0 .75rem}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid #dcdcde;vertical-align:top;overflow-wrap:anywhere}
code{font-size:1rem;overflow-wrap:anywhere}
ul.codes{columns:2;font-family:monospace;font-size:1.05rem}
.qr svg{width:200px;height:200px;max-width:100%}
.langs ul{list-style:none;display:flex;gap:1rem;padding:0;margin:0}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
.check{display:flex;gap:.5rem;align-items:center;margin:.75rem 0 .25rem}.check label{margin:0}.check input{width:24px;height:24px;margin:0}
.hint{color:#50575e;font-size:.95rem;margin:.25rem 0}
@media (max-width:480px){th.optional,td.optional{display:none}}
`;

/** Links to the page in each language (they set the language cookie). */
export interface LanguageLink {
  code: string;
  name: string;
  href: string;
}

function languageNav(m: Messages, languages: LanguageLink[] | undefined): string {
  if (!languages?.length) return '';
  const items = languages.map((l) =>
    l.code === m.lang
      ? `<li><strong lang="${esc(l.code)}" aria-current="true">${esc(l.name)}</strong></li>`
      : `<li><a lang="${esc(l.code)}" hreflang="${esc(l.code)}" href="${esc(l.href)}">${esc(l.name)}</a></li>`,
  );
  return `<nav class="langs" aria-label="${esc(m.language)}"><ul>${items.join('')}</ul></nav>`;
}

function layout(m: Messages, title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="${m.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>${head}
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">${esc(m.skipToContent)}</a>
<main id="main">
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

const errorBox = (error: string | undefined) => (error ? `<div class="error" role="alert" id="form-error">${esc(error)}</div>` : '<div role="alert" id="form-error"></div>');
const invalid = (error: string | undefined) => (error ? ' aria-invalid="true" aria-describedby="form-error"' : '');
const hidden = (name: string, value: string) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;

export function loginPage(
  m: Messages,
  o: { action: string; nonce: string; redirectTo?: string; error?: string; login?: string; notice?: string; languages?: LanguageLink[]; lostHref?: string; remember?: boolean },
): string {
  return layout(
    m,
    m.signInTitle,
    `<div class="card">
${o.notice ? `<div class="notice" role="status">${esc(o.notice)}</div>` : ''}${errorBox(o.error)}
<form method="post" action="${esc(o.action)}">
${hidden('_wpnonce', o.nonce)}${o.redirectTo ? hidden('redirect_to', o.redirectTo) : ''}
<label for="user_login">${esc(m.login)}</label>
<input type="text" id="user_login" name="log" value="${esc(o.login ?? '')}" autocomplete="username" autocapitalize="off" spellcheck="false" required${invalid(o.error)}>
<label for="user_pass">${esc(m.password)}</label>
<input type="password" id="user_pass" name="pwd" autocomplete="current-password" required${invalid(o.error)}>
<div class="check"><input type="checkbox" id="rememberme" name="rememberme" value="forever" aria-describedby="remember-help"${o.remember ? ' checked' : ''}><label for="rememberme">${esc(m.rememberMe)}</label></div>
<p class="hint" id="remember-help">${esc(m.rememberMeHelp)}</p>
<button type="submit">${esc(m.signIn)}</button>
</form>
${o.lostHref ? `<p><a href="${esc(o.lostHref)}">${esc(m.lostPassword)}</a></p>` : ''}
</div>
${languageNav(m, o.languages)}`,
  );
}

export function codePage(m: Messages, o: { action: string; cancelAction: string; nonce: string; error?: string }): string {
  return layout(
    m,
    m.codeTitle,
    `<div class="card">
${errorBox(o.error)}
<p id="code-help">${esc(m.codeHelp)}</p>
<form method="post" action="${esc(o.action)}">
${hidden('_wpnonce', o.nonce)}
<label for="code">${esc(m.code)}</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" autocapitalize="off" spellcheck="false" required aria-describedby="code-help${o.error ? ' form-error' : ''}"${o.error ? ' aria-invalid="true"' : ''}>
<button type="submit">${esc(m.verify)}</button>
</form>
<form method="post" action="${esc(o.cancelAction)}">
${hidden('_wpnonce', o.nonce)}
<button type="submit" class="secondary">${esc(m.cancel)}</button>
</form>
</div>`,
  );
}

export interface AccountView {
  name: string;
  role: string;
  restNonce: string;
  formNonce: string;
  currentSession: number;
  sessions: Array<{ id: number; created: string; lastUsed: string; userAgent: string; ip: string }>;
  twoFactor: { state: 'off' } | { state: 'pending'; secret: string; qrSvg: string } | { state: 'on'; recoveryLeft: number };
  mustEnrol: boolean;
  error?: string;
  notice?: string;
  paths: { app: string; signOut: string; signOutEverywhere: string; revoke: string; totpStart: string; totpConfirm: string; totpDisable: string };
  languages?: LanguageLink[];
}

export function accountPage(m: Messages, v: AccountView): string {
  const form = (action: string, inner: string) => `<form method="post" action="${esc(action)}">${hidden('_wpnonce', v.formNonce)}${inner}</form>`;
  const endButton = (id: number) =>
    id === v.currentSession
      ? `<strong>${esc(m.thisSession)}</strong>`
      : form(v.paths.revoke, `${hidden('id', String(id))}<button type="submit" class="secondary" aria-label="${esc(m.endSessionLabel(String(id)))}">${esc(m.endSession)}</button>`);
  const sessionRows = v.sessions
    .map((s) => `<tr><td>${esc(s.created)}</td><td>${esc(s.lastUsed)}</td><td class="optional">${esc(s.userAgent)}</td><td class="optional">${esc(s.ip)}</td><td>${endButton(s.id)}</td></tr>`)
    .join('\n');
  const tf = v.twoFactor;
  let twoFactor: string;
  if (tf.state === 'on') {
    twoFactor = `<p>${esc(m.twoFactorOn(tf.recoveryLeft))}</p>
${form(v.paths.totpDisable, `<label for="off-code">${esc(m.code)}</label><p id="off-help">${esc(m.turnOffHelp)}</p><input type="text" id="off-code" name="code" inputmode="numeric" autocomplete="one-time-code" required aria-describedby="off-help"><button type="submit" class="danger">${esc(m.turnOff)}</button>`)}`;
  } else if (tf.state === 'pending') {
    twoFactor = `<p id="enrol-help">${esc(m.enrolHelp)}</p>
<div class="qr">${tf.qrSvg}</div>
<p>${esc(m.secretKey)}: <code id="totp-secret">${esc(tf.secret)}</code></p>
${form(v.paths.totpConfirm, `<label for="enrol-code">${esc(m.code)}</label><input type="text" id="enrol-code" name="code" inputmode="numeric" autocomplete="one-time-code" required aria-describedby="enrol-help"><button type="submit">${esc(m.confirm)}</button>`)}`;
  } else {
    twoFactor = `<p>${esc(m.twoFactorOff)}</p>${form(v.paths.totpStart, `<button type="submit">${esc(m.turnOn)}</button>`)}`;
  }
  const sessions = v.mustEnrol
    ? ''
    : `<section class="card" aria-labelledby="sessions-title">
<h2 id="sessions-title">${esc(m.sessionsTitle)}</h2>
<table>
<thead><tr><th scope="col">${esc(m.sessionCreated)}</th><th scope="col">${esc(m.sessionLastUsed)}</th><th scope="col" class="optional">${esc(m.sessionBrowser)}</th><th scope="col" class="optional">${esc(m.sessionAddress)}</th><th scope="col">${esc(m.sessionEnd)}</th></tr></thead>
<tbody>
${sessionRows}
</tbody>
</table>
<p id="everywhere-help">${esc(m.signOutEverywhereHelp)}</p>
${form(v.paths.signOutEverywhere, `<button type="submit" class="danger" aria-describedby="everywhere-help">${esc(m.signOutEverywhere)}</button>`)}
</section>`;
  return layout(
    m,
    m.accountTitle,
    `${v.notice ? `<div class="notice" role="status">${esc(v.notice)}</div>` : ''}${errorBox(v.error)}
<section class="card" aria-labelledby="who-title">
<h2 id="who-title" class="visually-plain">${esc(m.signedInAs(v.name, v.role))}</h2>
${v.mustEnrol ? `<p>${esc(m.twoFactorRequired)}</p>` : `<p><a href="${esc(v.paths.app)}">${esc(m.openAdmin)}</a></p>`}
${form(v.paths.signOut, `<button type="submit" class="secondary">${esc(m.signOut)}</button>`)}
</section>
${sessions}
<section class="card" aria-labelledby="tf-title">
<h2 id="tf-title">${esc(m.twoFactorTitle)}</h2>
${twoFactor}
</section>
${languageNav(m, v.languages)}`,
    `\n<meta name="calendar-rest-nonce" content="${esc(v.restNonce)}">`,
  );
}

export function recoveryPage(m: Messages, codes: string[], continueHref: string): string {
  return layout(
    m,
    m.recoveryTitle,
    `<div class="card">
<p>${esc(m.recoveryHelp)}</p>
<ul class="codes" id="recovery-codes">
${codes.map((c) => `<li><code>${esc(c)}</code></li>`).join('\n')}
</ul>
<p><a href="${esc(continueHref)}">${esc(m.continue)}</a></p>
</div>`,
  );
}

/** An error the face answers with a page (an expired form, a URL it cannot read, a method its paths do not take). */
export function errorPage(m: Messages, message: string, backHref: string): string {
  return layout(
    m,
    m.errorTitle,
    `<div class="card">
<div class="error" role="alert">${esc(message)}</div>
<p><a href="${esc(backHref)}">${esc(m.openAdmin)}</a></p>
</div>`,
  );
}

/** "Lost your password?": the request form, or (`sent`) the answer, the same whatever was asked. */
export function lostPasswordPage(m: Messages, o: { action: string; nonce: string; signInHref: string; sent?: boolean; error?: string; languages?: LanguageLink[] }): string {
  const body = o.sent
    ? `<div class="notice" role="status">${esc(m.lostSent)}</div>`
    : `${errorBox(o.error)}<p id="lost-help">${esc(m.lostHelp)}</p>
<form method="post" action="${esc(o.action)}">
${hidden('_wpnonce', o.nonce)}
<label for="user_login">${esc(m.login)}</label>
<input type="text" id="user_login" name="user_login" autocomplete="username" autocapitalize="off" spellcheck="false" required aria-describedby="lost-help">
<button type="submit">${esc(m.lostSend)}</button>
</form>`;
  return layout(
    m,
    m.lostTitle,
    `<div class="card">
${body}
<p><a href="${esc(o.signInHref)}">${esc(m.backToSignIn)}</a></p>
</div>
${languageNav(m, o.languages)}`,
  );
}

/** The set-password page of an invitation (`invite`) or a lost-password link (`reset`). */
export function setPasswordPage(
  m: Messages,
  o: {
    kind: 'invite' | 'reset';
    action: string;
    token: string;
    nonce: string;
    login: string;
    minLength: number;
    error?: string;
    meter?: { script: string; action: string };
    languages?: LanguageLink[];
  },
): string {
  const described = `password-rules${o.error ? ' form-error' : ''}`;
  const bad = o.error ? ' aria-invalid="true"' : '';
  return layout(
    m,
    o.kind === 'invite' ? m.setPasswordTitle : m.resetTitle,
    `<div class="card">
${errorBox(o.error)}
<p>${esc(m.setPasswordFor(o.login))}</p>
<form method="post" action="${esc(o.action)}" id="set-password">
${hidden('_wpnonce', o.nonce)}${hidden('token', o.token)}
<input type="text" name="log" value="${esc(o.login)}" autocomplete="username" hidden>
<label for="pass1">${esc(m.newPassword)}</label>
<input type="password" id="pass1" name="pass1" autocomplete="new-password" minlength="${o.minLength}" required aria-describedby="${described}"${bad}>
<p class="hint" id="password-rules">${esc(m.passwordRules(o.minLength))}</p>
<div id="password-meter" aria-live="polite"${o.meter ? ` data-action="${esc(o.meter.action)}" data-empty="${esc(m.strengthEmpty)}" data-words="${esc(JSON.stringify(m.strengthWords))}"` : ''}></div>
<label for="pass2">${esc(m.confirmPassword)}</label>
<input type="password" id="pass2" name="pass2" autocomplete="new-password" required${o.error ? ' aria-describedby="form-error"' : ''}${bad}>
<button type="submit">${esc(m.savePassword)}</button>
</form>
</div>
${languageNav(m, o.languages)}`,
    o.meter ? `\n<script src="${esc(o.meter.script)}" defer></script>` : '',
  );
}

/** A set-password link that no longer works (used, expired, unknown). */
export function linkErrorPage(m: Messages, message: string, o: { signInHref: string; lostHref: string }): string {
  return layout(
    m,
    m.linkErrorTitle,
    `<div class="card">
<div class="error" role="alert">${esc(message)}</div>
<p><a href="${esc(o.signInHref)}">${esc(m.backToSignIn)}</a></p>
<p><a href="${esc(o.lostHref)}">${esc(m.lostPassword)}</a></p>
</div>`,
  );
}
