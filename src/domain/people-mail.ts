/**
 * The e-mails about people (plain text and HTML, English or French): an invitation with its
 * set-password link, a lost-password link, and the review notifications (to editors: an event
 * waits for review; to the contributor: it was published, or sent back with a note).
 *
 * @example
 *   const mail = invitationMail('fr', { site: 'Town', name: 'Ann', login: 'ann', link, expires: '3 days' });
 */
import type { Mail, Locale } from './submissions/mail.js';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]!);

const TEXT = {
  en: {
    hello: (name: string) => (name ? `Hello ${name},` : 'Hello,'),
    inviteSubject: (site: string) => `[${site}] You are invited to the calendar`,
    inviteBody: (site: string, login: string) => `You are invited to ${site}. Your username is ${login}. Choose your password with this link (it works once):`,
    resetSubject: (site: string) => `[${site}] Reset your password`,
    resetBody: (login: string) => `Someone asked to reset the password of ${login}. To choose a new one, open this link (it works once; your other sessions will end):`,
    resetIgnore: 'If it was not you, ignore this e-mail: your password stays as it is.',
    expires: (hours: number) => `The link expires in ${hours} hour${hours === 1 ? '' : 's'}.`,
    pendingSubject: (site: string, title: string) => `[${site}] An event waits for review: ${title}`,
    pendingBody: (author: string) => `${author} submitted an event for review:`,
    review: 'Review it here:',
    publishedSubject: (site: string, title: string) => `[${site}] Your event is published: ${title}`,
    publishedBody: 'Your event was reviewed and published.',
    seeIt: 'See it on the calendar:',
    sentBackSubject: (site: string, title: string) => `[${site}] Your event was sent back: ${title}`,
    sentBackBody: 'Your event was reviewed and sent back to you with a note. Edit it and submit it again:',
    note: 'Note:',
  },
  fr: {
    hello: (name: string) => (name ? `Bonjour ${name},` : 'Bonjour,'),
    inviteSubject: (site: string) => `[${site}] Vous êtes invité·e sur le calendrier`,
    inviteBody: (site: string, login: string) => `Vous êtes invité·e sur ${site}. Votre identifiant est ${login}. Choisissez votre mot de passe avec ce lien (il ne sert qu’une fois) :`,
    resetSubject: (site: string) => `[${site}] Réinitialiser votre mot de passe`,
    resetBody: (login: string) =>
      `Quelqu’un a demandé à réinitialiser le mot de passe de ${login}. Pour en choisir un nouveau, ouvrez ce lien (il ne sert qu’une fois ; vos autres sessions seront fermées) :`,
    resetIgnore: 'Si ce n’était pas vous, ignorez ce message : votre mot de passe ne change pas.',
    expires: (hours: number) => `Le lien expire dans ${hours} heure${hours > 1 ? 's' : ''}.`,
    pendingSubject: (site: string, title: string) => `[${site}] Un événement attend une relecture : ${title}`,
    pendingBody: (author: string) => `${author} a soumis un événement pour relecture :`,
    review: 'Relisez-le ici :',
    publishedSubject: (site: string, title: string) => `[${site}] Votre événement est publié : ${title}`,
    publishedBody: 'Votre événement a été relu et publié.',
    seeIt: 'Voyez-le sur le calendrier :',
    sentBackSubject: (site: string, title: string) => `[${site}] Votre événement vous est renvoyé : ${title}`,
    sentBackBody: 'Votre événement a été relu et vous est renvoyé avec une note. Modifiez-le et soumettez-le à nouveau :',
    note: 'Note :',
  },
} as const;

type Block = { text: string } | { link: string } | { quote: string };

function compose(locale: Locale, site: string, subject: string, name: string, blocks: Block[]): Mail {
  const t = TEXT[locale];
  const lines: string[] = [t.hello(name), ''];
  const html: string[] = [`<p>${esc(t.hello(name))}</p>`];
  for (const b of blocks) {
    if ('text' in b) {
      lines.push(b.text);
      html.push(`<p>${esc(b.text)}</p>`);
    } else if ('link' in b) {
      lines.push(b.link, '');
      html.push(`<p><a href="${esc(b.link)}">${esc(b.link)}</a></p>`);
    } else {
      lines.push('', b.quote, '');
      html.push(`<blockquote>${esc(b.quote).replace(/\n/g, '<br>')}</blockquote>`);
    }
  }
  lines.push('', '-- ', site);
  html.push(`<p>— ${esc(site)}</p>`);
  return { subject, text: lines.join('\n') + '\n', html: `<!doctype html><html lang="${locale}"><body>${html.join('')}</body></html>` };
}

export function invitationMail(locale: Locale, v: { site: string; name: string; login: string; link: string; hours: number }): Mail {
  const t = TEXT[locale];
  return compose(locale, v.site, t.inviteSubject(v.site), v.name, [{ text: t.inviteBody(v.site, v.login) }, { link: v.link }, { text: t.expires(v.hours) }]);
}

export function resetMail(locale: Locale, v: { site: string; name: string; login: string; link: string; hours: number }): Mail {
  const t = TEXT[locale];
  return compose(locale, v.site, t.resetSubject(v.site), v.name, [{ text: t.resetBody(v.login) }, { link: v.link }, { text: t.expires(v.hours) }, { text: t.resetIgnore }]);
}

export function pendingReviewMail(locale: Locale, v: { site: string; title: string; author: string; link: string }): Mail {
  const t = TEXT[locale];
  return compose(locale, v.site, t.pendingSubject(v.site, v.title), '', [{ text: t.pendingBody(v.author) }, { quote: v.title }, { text: t.review }, { link: v.link }]);
}

export function publishedMail(locale: Locale, v: { site: string; name: string; title: string; url: string }): Mail {
  const t = TEXT[locale];
  return compose(locale, v.site, t.publishedSubject(v.site, v.title), v.name, [{ text: t.publishedBody }, { quote: v.title }, { text: t.seeIt }, { link: v.url }]);
}

export function sentBackMail(locale: Locale, v: { site: string; name: string; title: string; note: string; link: string }): Mail {
  const t = TEXT[locale];
  return compose(locale, v.site, t.sentBackSubject(v.site, v.title), v.name, [{ text: t.sentBackBody }, { link: v.link }, { text: t.note }, { quote: v.note }]);
}
