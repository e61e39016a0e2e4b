/**
 * The submission pages' HTML: the form (`/events/submit/`) and the submitter's status
 * page (`/events/submit/status/{token}`), server-rendered, usable without JavaScript (but for the
 * proof of work, see docs/submissions.md), labelled fields, an error summary linked to its fields,
 * visible focus, a single column at 390 px. Every interpolated value is escaped (`html`).
 *
 * @example formPage(m, { action: '/events/submit/', values: {}, … })
 */
import { instantText, whenText } from '../domain/submissions/dates.js';
import { HEADER_LABELS, SITE_HEADER_CSS, siteHeader } from '../web/site-header.js';
import { html, trusted, type SafeHtml } from '../web/html.js';
import { iconLink } from '../web/site-icon.js';
import type { Messages } from './messages.js';

export const STYLE_PATH = '/events/submit/submit.css';
export const SCRIPT_PATH = '/events/submit/pow.js';

/** The pages' own stylesheet (the site's CSP allows 'self' styles only). */
export const STYLESHEET = `${SITE_HEADER_CSS}
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1f2937;background:#fff}
body{margin:0}main{max-width:44rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
fieldset{border:1px solid #9ca3af;border-radius:.4rem;margin:0 0 1rem;padding:.75rem 1rem}legend{font-weight:600;padding:0 .25rem}
.field{margin:0 0 .9rem}.field label,.field .label{display:block;font-weight:600;margin-bottom:.2rem}
input[type=text],input[type=email],input[type=url],input[type=date],input[type=time],select,textarea{box-sizing:border-box;width:100%;max-width:100%;font:inherit;padding:.45rem .5rem;border:1px solid #4b5563;border-radius:.3rem;background:#fff;color:#111827}
textarea{min-height:8rem}
.row{display:flex;flex-wrap:wrap;gap:0 1rem}.row>.field{flex:1 1 12rem}
.check{display:flex;gap:.5rem;align-items:center;margin:0 0 .9rem}.check input{width:1.2rem;height:1.2rem}
.help{color:#374151;font-size:.9rem;margin:.2rem 0 0}
.error{color:#991b1b;font-weight:600;margin:.2rem 0 0}
[aria-invalid=true]{border-color:#991b1b;border-width:2px}
.summary{border:2px solid #991b1b;border-radius:.4rem;padding:.75rem 1rem;margin:0 0 1rem;background:#fef2f2}
.notice{border:2px solid #166534;border-radius:.4rem;padding:.75rem 1rem;margin:0 0 1rem;background:#f0fdf4}
.status{font-size:1.1rem}
button{font:inherit;font-weight:600;padding:.6rem 1.1rem;border-radius:.3rem;border:2px solid #1e3a8a;background:#1e40af;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#991b1b;border-color:#991b1b}
a{color:#1e40af}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
.skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
.pow{font-size:.9rem;color:#374151;min-height:1.5em}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}
@media (max-width:30rem){dl{grid-template-columns:1fr}}
`;

/** The small script that solves the ALTCHA challenge (WebCrypto SHA-256) and fills the hidden field. */
export const POW_SCRIPT = `(function(){
var form=document.getElementById('submission-form');if(!form)return;
var field=form.querySelector('input[name=altcha]');var out=document.getElementById('pow-status');if(!field)return;
var solved=null;var waiting=false;
function hex(buf){return Array.prototype.map.call(new Uint8Array(buf),function(b){return('0'+b.toString(16)).slice(-2)}).join('')}
function say(t){if(out)out.textContent=t}
function solve(){say(form.getAttribute('data-pow-working'));
return fetch(form.getAttribute('data-challenge'),{headers:{accept:'application/json'},credentials:'same-origin'}).then(function(r){if(!r.ok)throw new Error('challenge '+r.status);return r.json()}).then(function(c){
var enc=new TextEncoder();var max=c.maxnumber||1000000;var n=0;
function step(){var batch=[];for(var i=0;i<500&&n<=max;i++,n++)batch.push(n);
return Promise.all(batch.map(function(k){return crypto.subtle.digest('SHA-256',enc.encode(c.salt+k)).then(function(d){return hex(d)===c.challenge?k:-1})})).then(function(found){
for(var j=0;j<found.length;j++)if(found[j]>=0)return found[j];if(n>max)throw new Error('unsolved');return step()})}
return step().then(function(num){solved=btoa(JSON.stringify({algorithm:c.algorithm,challenge:c.challenge,number:num,salt:c.salt,signature:c.signature}));field.value=solved;say(form.getAttribute('data-pow-done'))})
}).catch(function(){say(form.getAttribute('data-pow-failed'))})}
var running=solve();
form.addEventListener('submit',function(e){if(solved)return;e.preventDefault();if(waiting)return;waiting=true;running.then(function(){waiting=false;if(solved)form.submit()})});
})();`;

export interface Option {
  id: number;
  name: string;
}

export interface FormValues {
  [key: string]: string | string[] | undefined;
}

export interface FormView {
  action: string;
  values: FormValues;
  errors: Record<string, string>;
  formError?: string;
  venues: Option[];
  organizers: Option[];
  categories: Option[];
  timezone: string;
  stamp?: string;
  pow?: { challenge: string };
  /** a registered submitter: their name and e-mail come from their account */
  signedIn: boolean;
  nonce?: string;
  maxDescription: number;
  maxLinks: number;
  /** the edit form of the status page: no identity, no stamp */
  editing?: boolean;
  submitLabel?: string;
  /** a picture may be sent with the form (multipart): the largest accepted (MEDIA_MAX_BYTES) */
  pictureMaxBytes?: number;
}

/** The site the pages belong to: its name and its URLs, for the header the calendar's pages show too. */
export interface Site {
  siteName: string;
  /** SITE_ICON: the favicon's URL or path */
  siteIcon: string;
  url: (path: string) => string;
}

function layout(m: Messages, site: Site, title: string, body: SafeHtml, withScript = false, current?: 'propose'): string {
  const header = siteHeader({ siteName: site.siteName, url: site.url, labels: HEADER_LABELS[m.lang === 'fr' ? 'fr' : 'en'], submissions: true, ...(current ? { current } : {}) });
  return `<!doctype html>${html`<html lang="${m.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title} – ${site.siteName}</title>${trusted(iconLink(site.siteIcon, site.url))}<link rel="stylesheet" href="${STYLE_PATH}">${withScript ? html`<script src="${SCRIPT_PATH}" defer></script>` : ''}</head><body><a class="skip" href="#main">${m.skipToContent}</a>${header}<main id="main">${body}</main></body></html>`}`;
}

/**
 * The IANA zones the picker offers (the runtime's list): the site's zone first, then the others
 * by name; a zone the form holds that the list lacks (an alias, `UTC+2`) stays offered.
 */
const ZONES: string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();

function zoneOptions(siteZone: string, current: string): string[] {
  const rest = ZONES.filter((z) => z !== siteZone && z !== current);
  return [siteZone, ...(current !== '' && current !== siteZone ? [current] : []), ...rest];
}

/** The id of the control an error is about: a new venue's or organizer's name, the first category. */
export function anchorOf(name: string, f: Pick<FormView, 'categories'>): string {
  if (name === 'venue') return idOf('venue[venue]');
  if (name === 'organizer') return idOf('organizer[organizer]');
  if (name === 'categories' && f.categories[0]) return `f-cat-${String(f.categories[0].id)}`;
  return idOf(name);
}

const idOf = (name: string) => `f-${name.replace(/[^a-z0-9]+/gi, '-')}`;

const val = (v: FormValues, k: string): string => {
  const x = v[k];
  return Array.isArray(x) ? (x[0] ?? '') : (x ?? '');
};

function field(
  _m: Messages,
  v: FormValues,
  errors: Record<string, string>,
  name: string,
  label: string,
  options: { type?: string; required?: boolean; help?: string; autocomplete?: string; textarea?: boolean } = {},
): SafeHtml {
  const id = `f-${name.replace(/[^a-z0-9]+/gi, '-')}`;
  const err = errors[name];
  const describedBy = [options.help ? `${id}-help` : '', err ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attrs = html`id="${id}" name="${name}"${options.required ? trusted(' required') : ''}${err ? trusted(' aria-invalid="true"') : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}`;
  const control = options.textarea ? html`<textarea ${attrs}>${val(v, name)}</textarea>` : html`<input type="${options.type ?? 'text'}" ${attrs} value="${val(v, name)}">`;
  return html`<div class="field"><label for="${id}">${label}</label>${control}${options.help ? html`<p class="help" id="${id}-help">${options.help}</p>` : ''}${err ? html`<p class="error" id="${id}-error">${err}</p>` : ''}</div>`;
}

function select(v: FormValues, errors: Record<string, string>, name: string, label: string, none: string, options: Option[]): SafeHtml {
  const id = `f-${name.replace(/[^a-z0-9]+/gi, '-')}`;
  const current = val(v, name);
  const err = errors[name];
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}"${err ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}><option value="">${none}</option>${options.map(
    (o) => html`<option value="${String(o.id)}"${current === String(o.id) ? trusted(' selected') : ''}>${o.name}</option>`,
  )}</select>${err ? html`<p class="error" id="${id}-error">${err}</p>` : ''}</div>`;
}

/** The time zone: a list of IANA zones, the site's first and chosen unless the form holds another. */
function zonePicker(m: Messages, v: FormValues, errors: Record<string, string>, siteZone: string): SafeHtml {
  const id = idOf('timezone');
  const current = val(v, 'timezone') || siteZone;
  const err = errors.timezone;
  const describedBy = [`${id}-help`, err ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field"><label for="${id}">${m.timezone}</label><select id="${id}" name="timezone"${err ? trusted(' aria-invalid="true"') : ''} aria-describedby="${describedBy}">${zoneOptions(
    siteZone,
    current,
  ).map(
    (z) => html`<option value="${z}"${z === current ? trusted(' selected') : ''}>${z}</option>`,
  )}</select><p class="help" id="${id}-help">${m.timezoneHelp(siteZone)}</p>${err ? html`<p class="error" id="${id}-error">${err}</p>` : ''}</div>`;
}

/** The form's fields (the submission form and the status page's edit form). */
/** The picture's file input (one image, checked again by the server) and its alt text. */
function pictureFields(m: Messages, maxBytes: number, errors: Record<string, string>): SafeHtml {
  const err = errors.picture;
  return html`<div class="field"><label for="f-picture">${m.picture}</label><input type="file" id="f-picture" name="picture" accept="image/jpeg,image/png,image/gif,image/webp,image/avif" aria-describedby="f-picture-help${err ? ' f-picture-error' : ''}"${err ? trusted(' aria-invalid="true"') : ''}><p class="help" id="f-picture-help">${m.pictureHelp(maxBytes)}</p>${err ? html`<p class="error" id="f-picture-error">${err}</p>` : ''}</div>
<div class="field"><label for="f-picture-alt">${m.pictureAlt}</label><input type="text" id="f-picture-alt" name="picture_alt" maxlength="1000"></div>`;
}

function fields(m: Messages, f: FormView): SafeHtml {
  const v = f.values;
  const e = f.errors;
  const chosen = new Set((Array.isArray(v['categories[]']) ? v['categories[]'] : v['categories[]'] ? [v['categories[]']] : []) as string[]);
  return html`<fieldset><legend>${m.eventLegend}</legend>
${field(m, v, e, 'title', m.title, { required: true })}
${field(m, v, e, 'description', m.description, { textarea: true, help: m.descriptionHelp(f.maxDescription, f.maxLinks) })}
<div class="row">${field(m, v, e, 'start_date', m.startDate, { type: 'date', required: true })}${field(m, v, e, 'start_time', m.startTime, { type: 'time' })}</div>
<div class="row">${field(m, v, e, 'end_date', m.endDate, { type: 'date', required: true })}${field(m, v, e, 'end_time', m.endTime, { type: 'time' })}</div>
<div class="check"><input type="checkbox" id="f-all-day" name="all_day" value="1"${val(v, 'all_day') ? trusted(' checked') : ''}><label for="f-all-day">${m.allDay}</label></div>
${zonePicker(m, v, e, f.timezone)}
</fieldset>
<fieldset><legend>${m.venueLegend}</legend>
${select(v, e, 'venue_id', m.venueExisting, m.venueNone, f.venues)}
<p class="label" id="new-venue">${m.venueNew}</p>
${field(m, v, { ...e, 'venue[venue]': e.venue ?? '' }, 'venue[venue]', m.venueName)}${field(m, v, e, 'venue[address]', m.address, { autocomplete: 'off' })}
<div class="row">${field(m, v, e, 'venue[city]', m.city)}${field(m, v, e, 'venue[zip]', m.zip, { autocomplete: 'off' })}</div>
${field(m, v, e, 'venue[country]', m.country)}
</fieldset>
<fieldset aria-describedby="organizer-public"><legend>${m.organizerLegend}</legend>
<p class="help" id="organizer-public">${m.organizerPublic}</p>
${select(v, e, 'organizer_id', m.organizerExisting, m.organizerNone, f.organizers)}
<p class="label">${m.organizerNew}</p>
${field(m, v, { ...e, 'organizer[organizer]': e.organizer ?? '' }, 'organizer[organizer]', m.organizerName)}
<div class="row">${field(m, v, e, 'organizer[email]', m.organizerEmail, { type: 'email', autocomplete: 'off' })}${field(m, v, e, 'organizer[phone]', m.phone, { type: 'text' })}</div>
${field(m, v, e, 'organizer[website]', m.website, { type: 'url' })}
</fieldset>
<fieldset><legend>${m.detailsLegend}</legend>
${
  f.categories.length > 0
    ? html`<fieldset><legend>${m.categories}</legend>${f.categories.map(
        (c) =>
          html`<div class="check"><input type="checkbox" id="f-cat-${String(c.id)}" name="categories[]" value="${String(c.id)}"${chosen.has(String(c.id)) ? trusted(' checked') : ''}${e.categories ? trusted(' aria-invalid="true" aria-describedby="f-categories-error"') : ''}><label for="f-cat-${String(c.id)}">${c.name}</label></div>`,
      )}${e.categories ? html`<p class="error" id="f-categories-error">${e.categories}</p>` : ''}</fieldset>`
    : ''
}
${field(m, v, e, 'image', m.image, { type: 'url' })}
${f.pictureMaxBytes !== undefined && !f.editing ? pictureFields(m, f.pictureMaxBytes, e) : ''}
${field(m, v, e, 'cost', m.cost)}
${field(m, v, e, 'website', m.eventWebsite, { type: 'url' })}
</fieldset>`;
}

function errorSummary(m: Messages, f: FormView): SafeHtml {
  const entries = Object.entries(f.errors);
  if (entries.length === 0 && !f.formError) return html``;
  return html`<div class="summary" role="alert" tabindex="-1" id="errors"><p><strong>${m.errorsTitle}</strong></p><ul>${f.formError ? html`<li>${f.formError}</li>` : ''}${entries.map(
    ([name, msg]) => html`<li><a href="#${anchorOf(name, f)}">${msg}</a></li>`,
  )}</ul></div>`;
}

export function formPage(m: Messages, site: Site, f: FormView): string {
  const body = html`<h1>${m.submitTitle}</h1><p>${m.intro}</p>${errorSummary(m, f)}
<form method="post" action="${f.action}" id="submission-form" novalidate${f.pictureMaxBytes !== undefined && !f.editing ? trusted(' enctype="multipart/form-data"') : ''}${f.pow ? html` data-challenge="${f.pow.challenge}" data-pow-working="${m.powWorking}" data-pow-done="${m.powDone}" data-pow-failed="${m.powFailed}"` : ''}>
${fields(m, f)}
${
  f.signedIn
    ? ''
    : html`<fieldset><legend>${m.youLegend}</legend>${field(m, f.values, f.errors, 'name', m.name, { required: true, autocomplete: 'name' })}${field(m, f.values, f.errors, 'email', m.email, {
        type: 'email',
        required: true,
        autocomplete: 'email',
        help: m.emailHelp,
      })}</fieldset>`
}
<div class="hp" aria-hidden="true"><label for="f-homepage">${m.honeypot}</label><input type="text" id="f-homepage" name="homepage" tabindex="-1" autocomplete="off" value=""></div>
<input type="hidden" name="_started" value="${f.stamp ?? ''}">
${f.nonce ? html`<input type="hidden" name="_wpnonce" value="${f.nonce}">` : ''}
${f.pow ? html`<input type="hidden" name="altcha" value=""><noscript><p class="error">${m.noScriptPow}</p></noscript><p class="pow" id="pow-status" role="status" aria-live="polite"></p>` : ''}
<button type="submit">${m.send}</button>
</form>`;
  return layout(m, site, f.editing ? m.statusTitle : m.submitTitle, body, f.pow !== undefined, 'propose');
}

export function signInPage(m: Messages, site: Site, loginUrl: string): string {
  return layout(m, site, m.submitTitle, html`<h1>${m.submitTitle}</h1><p>${m.signInNeeded}</p><p><a href="${loginUrl}">${m.signIn}</a></p>`);
}

export function notFoundPage(m: Messages, site: Site, home: string): string {
  return layout(m, site, m.notFoundTitle, html`<h1>${m.notFoundTitle}</h1><p>${m.notFound}</p><p><a href="${home}">${m.backToCalendar}</a></p>`);
}

/** An error the face answers with a page (a body or URL it cannot read, a method its paths do not take). */
export function errorPage(m: Messages, site: Site, message: string, home: string): string {
  return layout(m, site, m.errorTitle, html`<h1>${m.errorTitle}</h1><p class="error" role="alert">${message}</p><p><a href="${home}">${m.backToCalendar}</a></p>`);
}

export interface StatusView {
  submission: Record<string, any>;
  notice?: string;
  edit?: FormView;
  action: string;
  home: string;
  /** the site's time zone: a scheduled publication is shown in it */
  siteZone: string;
}

export function statusPage(m: Messages, site: Site, s: StatusView): string {
  const sub = s.submission;
  const ev = (sub.event ?? {}) as Record<string, any>;
  const venue = ev.venue as Record<string, any> | null;
  const locale = m.lang === 'fr' ? 'fr' : 'en';
  const when = ev.start_date ? whenText(locale, { start_date: String(ev.start_date), end_date: String(ev.end_date ?? ''), all_day: Boolean(ev.all_day), timezone: String(ev.timezone ?? '') }) : '';
  const body = html`<h1>${m.statusTitle}</h1>
${s.notice ? html`<div class="notice" role="status"><p>${s.notice}</p></div>` : ''}
${s.edit ? errorSummary(m, s.edit) : ''}
<p>${m.keepLink}</p>
<dl>
<dt>${m.statusLabel}</dt><dd class="status" id="submission-status">${m.status[String(sub.status)] ?? String(sub.status)}${
    sub.resubmitted && sub.status === 'pending' ? html`<br><span id="submission-resubmitted">${m.resubmitted}</span>` : ''
  }</dd>
<dt>${m.title.replace(' *', '')}</dt><dd>${String(ev.title ?? '')}</dd>
<dt>${m.when}</dt><dd id="submission-when">${when}</dd>
${venue ? html`<dt>${m.where}</dt><dd>${[venue.venue, venue.address, [venue.zip, venue.city].filter(Boolean).join(' '), venue.country].filter(Boolean).map(String).join(', ')}</dd>` : ''}
${sub.reason ? html`<dt>${m.reasonLabel}</dt><dd id="submission-reason">${String(sub.reason)}</dd>` : ''}
</dl>
${sub.publish_at && sub.status === 'approved' ? html`<p id="submission-scheduled">${m.scheduledFor(instantText(locale, String(sub.publish_at), s.siteZone))}</p>` : ''}
${sub.url ? html`<p id="submission-url">${sub.publish_at && sub.status === 'approved' ? m.publicUrlScheduled : m.publishedAt} <a href="${String(sub.url)}">${String(sub.url)}</a></p>` : ''}
${
  s.edit
    ? html`<h2>${m.editTitle}</h2><p>${m.editHelp}</p><form method="post" action="${s.action}" id="edit-form" novalidate><input type="hidden" name="_action" value="edit">${fields(m, s.edit)}<button type="submit">${m.save}</button></form>
<h2>${m.withdrawTitle}</h2><p>${m.withdrawHelp}</p><form method="post" action="${s.action}" id="withdraw-form"><input type="hidden" name="_action" value="withdraw"><button type="submit" class="secondary">${m.withdraw}</button></form>`
    : ''
}
<p><a href="${s.home}">${m.backToCalendar}</a></p>`;
  return layout(m, site, m.statusTitle, body);
}
