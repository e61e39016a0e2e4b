/**
 * People: invitations, password resets, "Remember me" and the e-mails about people's work.
 *
 * - `user_tokens`: single-use links (an invitation to set a first password, or a reset of a lost
 *   one); only the SHA-256 of the token is stored, with when it expires and when it was used
 *   (`used_gmt`; a used or revoked link is never accepted again).
 * - `sessions.remember`: 1 when the user ticked "Remember me" (a persistent cookie, and the
 *   session is not ended by SESSION_IDLE).
 * - `mail_outbox`: e-mails to send (invitations, resets, review notifications), written in the
 *   transaction of what they are about and sent by a job that retries them until the SMTP server
 *   takes them (`sent_gmt`), so an SMTP failure loses none.
 * - `mail_cursors`: how far a reader of the change log that e-mails (the review notifications)
 *   has read (`seq`), advanced in the transaction that queues its mails.
 */
import { sql, type Kysely } from 'kysely';

export function peopleMigration(dialect: 'sqlite' | 'postgres') {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const pk = (c: any) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
      const idType = dialect === 'postgres' ? 'serial' : 'integer';
      await db.schema
        .createTable('user_tokens')
        .addColumn('id', idType, pk)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('expires_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('used_gmt', 'varchar(19)')
        .addColumn('created_by', 'integer')
        .execute();
      await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'kind']).execute();
      await db.schema
        .alterTable('sessions')
        .addColumn('remember', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', idType, pk)
        .addColumn('kind', 'varchar(32)', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body_text', 'text', (c) => c.notNull())
        .addColumn('body_html', 'text', (c) => c.notNull())
        .addColumn('created_gmt', 'varchar(19)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('sent_gmt', 'varchar(19)')
        .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['sent_gmt', 'next_ms']).execute();
      await db.schema
        .createTable('mail_cursors')
        .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('seq', 'bigint', (c) => c.notNull())
        .execute();
      // The review notifications start at the present: what happened before them is not announced.
      const head = await sql<{ value: number | string }>`select "value" from "change_counter" where "id" = 1`.execute(db);
      await db
        .insertInto('mail_cursors')
        .values({ name: 'review', seq: Number(head.rows[0]?.value ?? 0) })
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.dropTable('mail_cursors').ifExists().execute();
      await db.schema.dropTable('mail_outbox').ifExists().execute();
      await db.schema.alterTable('sessions').dropColumn('remember').execute();
      await db.schema.dropTable('user_tokens').ifExists().execute();
    },
  };
}
