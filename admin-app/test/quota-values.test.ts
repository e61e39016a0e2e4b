/** The Quotas form's values (screens/plugins/calendars/quota-values.ts): fields to the API's `quotas` and back. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { quotaOfProblem, quotasBody, quotaText, quotaTexts, quotaUsage, quotaValue } from '../src/screens/plugins/calendars/quota-values';

const MB = 1024 * 1024;

describe('admin app quota values', () => {
  it('shows a quota the calendar does not name as an empty field, images in MB', () => {
    assert.deepEqual(quotaTexts({ events: 3, media_bytes: 5 * MB, webhook_endpoints: 0 }, 'en'), {
      events: '3',
      media_bytes: '5',
      requests_per_minute: '',
      webhook_endpoints: '0',
      submissions_per_day: '',
      sync_history_days: '',
    });
    assert.equal(quotaText('media_bytes', 1.5 * MB, 'fr'), '1,5');
    assert.equal(quotaText('media_bytes', 1_000_000, 'en'), '0.95');
  });

  it('sends numbers, MB as bytes, and leaves an empty field out (the installation default)', () => {
    assert.equal(quotaValue('events', ' '), undefined);
    assert.equal(quotaValue('events', '1 000'), 1000);
    assert.equal(quotaValue('media_bytes', '1,5'), 1.5 * MB);
    assert.equal(quotaValue('media_bytes', '0.0000001'), 1, 'a size never rounds to no limit');
    assert.equal(quotaValue('media_bytes', '0'), 0);
    // Refused by the API, which names the field: sent as typed.
    assert.equal(quotaValue('events', '-1'), -1);
    assert.equal(quotaValue('events', '2.5'), 2.5);
    assert.equal(quotaValue('events', 'ten'), 'ten');
    assert.deepEqual(quotasBody({ events: '1', media_bytes: '', requests_per_minute: '0' }, { media_bytes: MB }, 'en'), { events: 1, requests_per_minute: 0 });
  });

  it('keeps a stored size exactly when its rounded MB are left as shown', () => {
    const saved = { media_bytes: 1_000_000 };
    assert.deepEqual(quotasBody(quotaTexts(saved, 'en'), saved, 'en'), { media_bytes: 1_000_000 });
    assert.deepEqual(quotasBody({ ...quotaTexts(saved, 'en'), media_bytes: '1' }, saved, 'en'), { media_bytes: MB });
  });

  it('finds the quota an API refusal names', () => {
    assert.equal(quotaOfProblem({ status: 400, params: { quotas: 'x' }, details: { quotas: { code: 'rest_invalid_param', message: 'x', data: { status: 400, quota: 'events' } } } }), 'events');
    assert.equal(quotaOfProblem({ status: 400, params: { quotas: 'x' }, details: [] }), undefined);
    assert.equal(quotaOfProblem({ details: { quotas: { data: { quota: 'nonsense' } } } }), undefined);
    assert.equal(quotaOfProblem(undefined), undefined);
  });

  it('says what a calendar uses of each quota, with or without a limit, images in MB', () => {
    const usage = {
      events: { limit: 5, used: 2 },
      media_bytes: { limit: 10 * MB, used: 1.5 * MB },
      requests_per_minute: { limit: 60, used: null },
      webhook_endpoints: { limit: 0, used: 1234 },
      submissions_per_day: { limit: 0, used: 0 },
      sync_history_days: { limit: 10, used: 90 },
    };
    assert.deepEqual(quotaUsage('events', usage, 'en'), { key: 'calendars.quotas.usedOf', vars: { used: '2', limit: '5' } });
    assert.deepEqual(quotaUsage('media_bytes', usage, 'fr'), { key: 'calendars.quotas.usedOf', vars: { used: '1,5', limit: '10' } });
    assert.deepEqual(quotaUsage('webhook_endpoints', usage, 'en'), { key: 'calendars.quotas.usedNoLimit', vars: { used: '1,234' } });
    assert.equal(quotaUsage('requests_per_minute', usage, 'en'), undefined);
    // The sync history: the days the calendar's setting asks for, and what the quota lets it keep.
    assert.deepEqual(quotaUsage('sync_history_days', usage, 'en'), { key: 'calendars.quotas.historySetting', vars: { used: '90', kept: '10' } });
    assert.deepEqual(quotaUsage('sync_history_days', { ...usage, sync_history_days: { limit: 0, used: 30 } }, 'en'), { key: 'calendars.quotas.historySetting', vars: { used: '30', kept: '30' } });
    assert.equal(quotaUsage('events', undefined, 'en'), undefined);
  });
});
