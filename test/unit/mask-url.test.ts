/**
 * Issue 44: secrets stay secret. `maskUrl` (config.ts) is the one function that masks what a
 * setting's value hides wherever it is shown (the admin API's settings, the start-up log, the CLI's
 * output, start-up errors): a URL's password, raw `@`, `/`, `?` or `#` in it included, and the
 * values of secret query and fragment parameters; the rest of the value as it was.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MASK, maskUrl } from '../../src/config.js';

describe('maskUrl', () => {
  it('masks the password of the user information, keeping the user, host, port, path and other parameters', () => {
    assert.equal(MASK, '********');
    assert.equal(maskUrl('postgres://app:s3cret@db:5432/calendar'), 'postgres://app:********@db:5432/calendar');
    assert.equal(maskUrl('smtp://mailer:s3cret@smtp.example.org:587'), 'smtp://mailer:********@smtp.example.org:587');
    assert.equal(maskUrl('smtps://:only-a-password@smtp.example.org'), 'smtps://:********@smtp.example.org');
    assert.equal(maskUrl('postgres://app:pw@[::1]:5432/calendar?sslmode=require'), 'postgres://app:********@[::1]:5432/calendar?sslmode=require');
    assert.equal(maskUrl('postgres://app:p%40ss@db/calendar'), 'postgres://app:********@db/calendar');
    assert.equal(maskUrl('postgres://app:pw@db1:5432,db2:5432/calendar'), 'postgres://app:********@db1:5432,db2:5432/calendar');
  });

  it('a password holding a raw @ (the last @ of the authority ends the user information)', () => {
    assert.equal(maskUrl('postgres://u:p@ss@host/db'), 'postgres://u:********@host/db');
    assert.equal(maskUrl('smtp://u:a@b@c@smtp.example.org:587'), 'smtp://u:********@smtp.example.org:587');
  });

  it('a password holding a raw /, ? or # (the authority is no host[:port]): hidden up to the last @', () => {
    assert.equal(maskUrl('postgres://u:p/ss@host/db'), 'postgres://u:********@host/db');
    assert.equal(maskUrl('postgres://u:p?ss@host/db'), 'postgres://u:********@host/db');
    assert.equal(maskUrl('postgres://u:p#ss@host/db'), 'postgres://u:********@host/db');
  });

  it('masks secret query and fragment parameters, any case, names decoded', () => {
    assert.equal(maskUrl('postgres://app@db/calendar?password=hunter2&sslmode=require'), 'postgres://app@db/calendar?password=********&sslmode=require');
    assert.equal(
      maskUrl('https://h/x?token=a&Access_Token=b&api_key=c&key=d&secret=e&pass=f&pwd=g&sslpassword=h&client_secret=i&page=2'),
      'https://h/x?token=********&Access_Token=********&api_key=********&key=********&secret=********&pass=********&pwd=********&sslpassword=********&client_secret=********&page=2',
    );
    assert.equal(maskUrl('https://h/x?pass%77ord=a&apiKey=b'), 'https://h/x?pass%77ord=********&apiKey=********');
    assert.equal(maskUrl('https://h/cal.ics#access_token=a&view=month'), 'https://h/cal.ics#access_token=********&view=month');
    assert.equal(maskUrl('postgres://u:p@ss@host/db?password=p@ss'), 'postgres://u:********@host/db?password=********');
    assert.equal(maskUrl('sqlite:./data/calendar.db?key=k'), 'sqlite:./data/calendar.db?key=********');
  });

  it('a URL missing its scheme (user:password@host) is masked too; text with white space before its @ is not a URL', () => {
    assert.equal(maskUrl('site-user:site-secret@example.org'), 'site-user:********@example.org');
    assert.equal(maskUrl('u:p@ss@db.internal:5432/calendar'), 'u:********@db.internal:5432/calendar');
    assert.equal(maskUrl('//site-user:site-secret@example.org/x'), '//site-user:********@example.org/x');
    assert.equal(maskUrl('Club: meet@noon'), 'Club: meet@noon');
  });

  it('leaves what hides nothing as it is', () => {
    for (const text of [
      'sqlite:./data/calendar.db',
      'sqlite::memory:',
      'postgres://app@db/calendar',
      'postgres://u:@h/db',
      'smtp://smtp.example.org:587/?from=a@b.example',
      'http://[::1]:8080',
      'https://example.org/events/?page=2&password=',
      'Europe/Rome',
      'calendar@localhost',
      'Events Calendar',
      '',
    ]) {
      assert.equal(maskUrl(text), text);
    }
  });
});
