/**
 * E-mails of community submissions, sent through nodemailer to SMTP_URL: moderators on a
 * new submission (or a daily digest), the submitter on each decision with their private link.
 * Every message has a plain-text part and an HTML part, in the submitter's language (English or
 * French) or the site's (moderators: English and French catalogue, chosen per message).
 *
 * @example
 *   const mailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:2525', smtpFrom: 'cal@example.org', siteName: 'Town' });
 *   await mailer?.send({ to: 'ann@example.org', ...decisionMail('fr', { … }) });
 */
import type { Transporter } from 'nodemailer';
import { onFirstUse } from '../on-first-use.js';

export type Locale = 'en' | 'fr';

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: Mail & { to: string | string[] }): Promise<void>;
  close(): void;
}

/** A mailer over SMTP_URL, or undefined when none is set. */
export function createMailer(config: { smtpUrl?: string; smtpFrom: string }): Mailer | undefined {
  const smtpUrl = config.smtpUrl;
  if (!smtpUrl) return undefined;
  // nodemailer is loaded with the first message, not at every start.
  const transportOf = onFirstUse<Transporter>(() => import('nodemailer').then((m) => m.default.createTransport(smtpUrl)));
  // The transport the last message asked for, loaded or still loading: closing waits for it, so
  // that one made while the server stops is closed too (a pooled transport keeps its connections).
  let asked: Promise<Transporter> | undefined;
  return {
    async send(message) {
      await (await (asked = transportOf())).sendMail({ from: config.smtpFrom, to: message.to, subject: message.subject, text: message.text, html: message.html });
    },
    close: () =>
      void asked?.then(
        (t) => t.close(),
        () => undefined,
      ),
  };
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]!);

/** What a decision e-mail says. */
export type Decision = 'approved' | 'rejected' | 'changes_requested' | 'received';

const TEXT = {
  en: {
    subject: {
      received: (site: string, title: string) => `[${site}] We received your event: ${title}`,
      approved: (site: string, title: string) => `[${site}] Your event is approved: ${title}`,
      rejected: (site: string, title: string) => `[${site}] Your event was not accepted: ${title}`,
      changes_requested: (site: string, title: string) => `[${site}] Changes requested for your event: ${title}`,
    },
    body: {
      received: 'Thank you. Your event was received and waits for a moderator.',
      approved: 'Good news: your event was approved.',
      rejected: 'Your event was not accepted.',
      changes_requested: 'A moderator asks for changes before your event can be published. Edit it through your link and send it again.',
    },
    hello: (name: string) => (name ? `Hello ${name},` : 'Hello,'),
    reason: 'Reason:',
    when: 'When:',
    eventUrl: 'See it on the calendar:',
    eventUrlScheduled: 'Its address on the calendar, once published:',
    link: 'See its status, edit or withdraw it here (keep this link private):',
    publishAt: (when: string) => `It will be published on ${when}.`,
    newSubject: (site: string, n: number) => (n === 1 ? `[${site}] 1 new event to moderate` : `[${site}] ${n} new events to moderate`),
    newBody: 'These events were proposed and wait for moderation:',
    queue: 'The moderation queue:',
    flagged: 'possible duplicate',
    resubmitted: 'sent again after changes were requested',
  },
  fr: {
    subject: {
      received: (site: string, title: string) => `[${site}] Nous avons reçu votre événement : ${title}`,
      approved: (site: string, title: string) => `[${site}] Votre événement est approuvé : ${title}`,
      rejected: (site: string, title: string) => `[${site}] Votre événement n’a pas été retenu : ${title}`,
      changes_requested: (site: string, title: string) => `[${site}] Modifications demandées pour votre événement : ${title}`,
    },
    body: {
      received: 'Merci. Votre événement a bien été reçu et attend un modérateur.',
      approved: 'Bonne nouvelle : votre événement a été approuvé.',
      rejected: 'Votre événement n’a pas été retenu.',
      changes_requested: 'Un modérateur demande des modifications avant de publier votre événement. Modifiez-le grâce à votre lien et envoyez-le à nouveau.',
    },
    hello: (name: string) => (name ? `Bonjour ${name},` : 'Bonjour,'),
    reason: 'Motif :',
    when: 'Quand :',
    eventUrl: 'Voyez-le sur le calendrier :',
    eventUrlScheduled: 'Son adresse sur le calendrier, une fois publié :',
    link: 'Consultez son état, modifiez-le ou retirez-le ici (gardez ce lien pour vous) :',
    publishAt: (when: string) => `Il sera publié le ${when}.`,
    newSubject: (site: string, n: number) => (n === 1 ? `[${site}] 1 nouvel événement à modérer` : `[${site}] ${n} nouveaux événements à modérer`),
    newBody: 'Ces événements ont été proposés et attendent une modération :',
    queue: 'La file de modération :',
    flagged: 'doublon possible',
    resubmitted: 'renvoyé après une demande de modifications',
  },
} as const;

/**
 * The e-mail to the submitter about a decision (or the receipt), with their private link; the
 * event's dates (`when`) and the publication time already written in the reader's language
 * (dates.ts), and once approved the event's public address.
 */
export function decisionMail(
  locale: Locale,
  v: { site: string; name: string; title: string; decision: Decision; reason: string; link: string; when?: string; publishAt?: string; eventUrl?: string },
): Mail {
  const t = TEXT[locale];
  const lines = [t.hello(v.name), '', t.body[v.decision]];
  if (v.publishAt) lines.push(t.publishAt(v.publishAt));
  if (v.when) lines.push('', `${t.when} ${v.when}`);
  if (v.eventUrl) lines.push('', v.publishAt ? t.eventUrlScheduled : t.eventUrl, v.eventUrl);
  if (v.reason) lines.push('', t.reason, v.reason);
  lines.push('', t.link, v.link, '', '-- ', v.site);
  const htmlParts = [
    `<p>${esc(t.hello(v.name))}</p>`,
    `<p>${esc(t.body[v.decision])}${v.publishAt ? ' ' + esc(t.publishAt(v.publishAt)) : ''}</p>`,
    v.when ? `<p><strong>${esc(t.when)}</strong> ${esc(v.when)}</p>` : '',
    v.eventUrl ? `<p>${esc(v.publishAt ? t.eventUrlScheduled : t.eventUrl)}<br><a href="${esc(v.eventUrl)}">${esc(v.eventUrl)}</a></p>` : '',
    v.reason ? `<p><strong>${esc(t.reason)}</strong></p><blockquote>${esc(v.reason).replace(/\n/g, '<br>')}</blockquote>` : '',
    `<p>${esc(t.link)}<br><a href="${esc(v.link)}">${esc(v.link)}</a></p>`,
    `<p>— ${esc(v.site)}</p>`,
  ];
  return { subject: t.subject[v.decision](v.site, v.title), text: lines.join('\n') + '\n', html: `<!doctype html><html lang="${locale}"><body>${htmlParts.join('')}</body></html>` };
}

/**
 * The e-mail to moderators about new submissions (one, or a digest of several): each with its
 * dates written in the message's language, and marked when it is sent again after changes were
 * requested.
 */
export function moderatorMail(locale: Locale, v: { site: string; queue: string; items: Array<{ title: string; start: string; submitter: string; flagged: boolean; resubmitted?: boolean }> }): Mail {
  const t = TEXT[locale];
  const item = (i: (typeof v.items)[number]) => `${i.title} (${i.start})${i.submitter ? ` — ${i.submitter}` : ''}${i.resubmitted ? ` [${t.resubmitted}]` : ''}${i.flagged ? ` [${t.flagged}]` : ''}`;
  const text = [t.newBody, '', ...v.items.map((i) => `* ${item(i)}`), '', t.queue, v.queue, '', '-- ', v.site].join('\n') + '\n';
  const html = `<!doctype html><html lang="${locale}"><body><p>${esc(t.newBody)}</p><ul>${v.items.map((i) => `<li>${esc(item(i))}</li>`).join('')}</ul><p>${esc(t.queue)}<br><a href="${esc(v.queue)}">${esc(
    v.queue,
  )}</a></p><p>— ${esc(v.site)}</p></body></html>`;
  return { subject: t.newSubject(v.site, v.items.length), text, html };
}
