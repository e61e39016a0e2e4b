import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, 'sqlite:./data/calendar.db');
    assert.equal(c.restRoot, '/api');
    assert.equal(c.siteUrl, 'http://127.0.0.1:8080');
    assert.equal(c.timezone, 'UTC');
    assert.equal(c.maxPerPage, 50);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.adminUser, undefined);
  });
  it('reads every variable of the COMPAT table, flags winning over the environment', () => {
    const c = loadConfig(
      { PORT: '9000', HOST: '0.0.0.0', DATABASE_URL: 'sqlite::memory:', REST_ROOT: 'wp-json/', SITE_URL: 'https://cal.example/', CALENDAR_TIMEZONE: 'Europe/Rome', CALENDAR_ADMIN_USER: 'a', CALENDAR_ADMIN_PASSWORD: 'b', MAX_PER_PAGE: '20', LOG_LEVEL: 'warn' },
      { port: '9100' },
    );
    assert.equal(c.port, 9100);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.restRoot, '/wp-json');
    assert.equal(c.siteUrl, 'https://cal.example');
    assert.equal(c.timezone, 'Europe/Rome');
    assert.equal(c.adminUser, 'a');
    assert.equal(c.adminPassword, 'b');
    assert.equal(c.maxPerPage, 20);
    assert.equal(c.logLevel, 'warn');
    assert.deepEqual(
      SETTINGS.map((s) => s.env),
      ['PORT', 'HOST', 'DATABASE_URL', 'REST_ROOT', 'SITE_URL', 'CALENDAR_TIMEZONE', 'CALENDAR_ADMIN_USER', 'CALENDAR_ADMIN_PASSWORD', 'MAX_PER_PAGE', 'LOG_LEVEL', 'DATABASE_TIMEOUT_MS'],
    );
  });
  it('rejects unusable values', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), ConfigError);
    assert.throws(() => loadConfig({ PORT: '70000' }), ConfigError);
    assert.throws(() => loadConfig({ MAX_PER_PAGE: '0' }), ConfigError);
    assert.throws(() => loadConfig({ SITE_URL: 'not a url' }), ConfigError);
  });
});
