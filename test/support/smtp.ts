/**
 * An SMTP server for tests (`smtp-server`, on 127.0.0.1, no TLS, any credentials): it keeps every
 * message that arrived, read back into its subject, recipients and its plain-text and HTML parts
 * (quoted-printable, base64 and encoded-word headers decoded), to check e-mails as received.
 *
 * @example
 *   const smtp = await startSmtp();
 *   // SMTP_URL: smtp.url
 *   const [mail] = await smtp.waitFor((m) => m.to.includes('ann@example.org'));
 *   mail.text // the plain-text part
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface TestSmtp {
  url: string;
  messages: ReceivedMail[];
  waitFor(test: (m: ReceivedMail) => boolean, count?: number, ms?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(text[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeWords(s: string): string {
  return s
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_w, _cs: string, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function headersOf(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

function bodyOf(headers: Record<string, string>, body: string): string {
  const enc = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (enc === 'quoted-printable') return decodeQuotedPrintable(body);
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** The parts of a MIME message, by content type (nested multiparts walked). */
function partsOf(raw: string, into: { text: string; html: string }): void {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = headersOf(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      partsOf(part.replace(/^\r?\n/, ''), into);
    }
    return;
  }
  const decoded = bodyOf(headers, body);
  if (type.toLowerCase().startsWith('text/html')) into.html = decoded;
  else if (type.toLowerCase().startsWith('text/plain')) into.text = decoded;
}

export async function startSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.search(/\r?\n\r?\n/);
        const headers = headersOf(raw.slice(0, split));
        const parts = { text: '', html: '' };
        partsOf(raw, parts);
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: decodeWords(headers.subject ?? ''),
          text: parts.text,
          html: parts.html,
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(test, count = 1, ms = 10_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = messages.filter(test);
        if (found.length >= count) return found;
        if (Date.now() > until) throw new Error(`expected ${count} e-mail(s), got ${found.length}: ${JSON.stringify(messages.map((m) => [m.to, m.subject]))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
