/**
 * The submissions' mailer loads nodemailer with its first message (docs/design.md, "Heavy
 * libraries of rare paths load on first use"). A server stopping while that first message is on
 * its way closes the transport all the same: a pooled one (`?pool=true`) keeps its connection to
 * the SMTP server open otherwise. (The message itself may then be refused, "Connection pool was
 * closed": the mail outbox keeps it and tries again later.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { createMailer } from '../../src/domain/submissions/mail.js';

describe('the mailer, closed while its transport is loading', () => {
  it('leaves no connection open to the SMTP server', async () => {
    let opened = 0;
    let closed = 0;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onConnect: (_session, done) => (opened++, done()),
      onClose: () => void closed++,
      onData: (stream, _session, done) => {
        stream.resume();
        stream.on('end', () => done());
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    try {
      const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}?pool=true`, smtpFrom: 'calendar@example.org' })!;
      const sent = mailer.send({ to: 'ann@example.org', subject: 'Hello', text: 'Hi', html: '<p>Hi</p>' });
      mailer.close();
      await sent.catch(() => undefined);
      for (let i = 0; i < 100 && closed < opened; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(closed, opened, `${opened} connections opened, ${closed} closed`);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
