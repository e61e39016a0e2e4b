/**
 * Statuses (behavior.md §5, §3.4 and COMPAT 11): what a write stores, scheduling, and what lists
 * may ask for and show.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ANONYMOUS, ROLES, viewerOf, type Role, type Viewer } from '../../src/domain/permissions.js';
import { ANY_STATUSES, applyScheduling, defaultListStatuses, isPostStatus, listScope, listStatusFilter, scaleBackStatus, splitStatusList } from '../../src/domain/statuses.js';

const viewers = Object.fromEntries(ROLES.map((role, i) => [role, viewerOf({ id: i + 1, login: role, role })])) as Record<Role, Viewer>;
const PUBLISHERS: Role[] = ['administrator', 'editor', 'author'];
const NON_PUBLISHERS: Role[] = ['contributor', 'subscriber'];

describe('scaleBackStatus', () => {
  it('publishers keep what they send; nothing sent → publish', () => {
    for (const role of PUBLISHERS) {
      for (const s of ['publish', 'future', 'draft', 'pending', 'private', 'trash']) assert.equal(scaleBackStatus(viewers[role], s), s, `${role} ${s}`);
      assert.equal(scaleBackStatus(viewers[role], undefined), 'publish');
      assert.equal(scaleBackStatus(viewers[role], ''), 'publish');
    }
  });

  it('non-publishers: publish/future (and, our choice, private) → pending; nothing → draft; others kept', () => {
    for (const role of NON_PUBLISHERS) {
      const v = viewers[role];
      assert.equal(scaleBackStatus(v, 'publish'), 'pending');
      assert.equal(scaleBackStatus(v, 'future'), 'pending');
      assert.equal(scaleBackStatus(v, 'private'), 'pending');
      assert.equal(scaleBackStatus(v, undefined), 'draft');
      assert.equal(scaleBackStatus(v, null), 'draft');
      assert.equal(scaleBackStatus(v, ''), 'draft');
      assert.equal(scaleBackStatus(v, 'draft'), 'draft');
      assert.equal(scaleBackStatus(v, 'pending'), 'pending');
    }
    assert.equal(scaleBackStatus(ANONYMOUS, 'publish'), 'pending');
  });
});

describe('applyScheduling', () => {
  const now = '2026-06-01 12:00:00';
  it('publish a minute or more ahead → future', () => {
    assert.equal(applyScheduling('publish', '2026-06-01 12:01:00', now), 'future');
    assert.equal(applyScheduling('publish', '2027-01-01 00:00:00', now), 'future');
  });
  it('publish now, just ahead or in the past stays publish', () => {
    assert.equal(applyScheduling('publish', now, now), 'publish');
    assert.equal(applyScheduling('publish', '2026-06-01 12:00:59', now), 'publish');
    assert.equal(applyScheduling('publish', '2020-01-01 00:00:00', now), 'publish');
  });
  it('future not (a minute) ahead → publish; future ahead stays', () => {
    assert.equal(applyScheduling('future', '2020-01-01 00:00:00', now), 'publish');
    assert.equal(applyScheduling('future', now, now), 'publish');
    assert.equal(applyScheduling('future', '2026-06-02 00:00:00', now), 'future');
  });
  it('other statuses are kept', () => {
    for (const s of ['draft', 'pending', 'private', 'trash']) assert.equal(applyScheduling(s, '2030-01-01 00:00:00', now), s);
  });
  it('crosses day and year boundaries', () => {
    assert.equal(applyScheduling('publish', '2027-01-01 00:00:30', '2026-12-31 23:59:45'), 'publish');
    assert.equal(applyScheduling('publish', '2027-01-01 00:00:45', '2026-12-31 23:59:45'), 'future');
  });
});

describe('status values', () => {
  it('registered statuses only', () => {
    for (const s of ['publish', 'future', 'draft', 'pending', 'private', 'trash']) assert.equal(isPostStatus(s), true, s);
    for (const s of ['any', 'kinda_thinking_about_it', '', 'Publish', 1, null]) assert.equal(isPostStatus(s), false, String(s));
  });
  it('lists split on commas with spaces trimmed; arrays accepted', () => {
    assert.deepEqual(splitStatusList('publish, draft'), ['publish', 'draft']);
    assert.deepEqual(splitStatusList(['publish', ' draft ']), ['publish', 'draft']);
    assert.deepEqual(splitStatusList(''), []);
  });
});

describe('listStatusFilter (behavior.md §3.4)', () => {
  it('without the edit capability only exactly "publish"', () => {
    for (const v of [ANONYMOUS, viewers.subscriber]) {
      assert.deepEqual(listStatusFilter(v, 'tribe_events', 'publish'), ['publish']);
      assert.equal(listStatusFilter(v, 'tribe_events', 'publish, draft'), null);
      assert.equal(listStatusFilter(v, 'tribe_events', 'draft'), null);
      assert.equal(listStatusFilter(v, 'tribe_venue', 'any'), null);
      assert.equal(listStatusFilter(v, 'tribe_events', ''), null);
    }
  });
  it('with it, known statuses and `any` only (unknown → 400)', () => {
    for (const role of ['administrator', 'editor', 'author', 'contributor'] as Role[]) {
      const v = viewers[role];
      assert.deepEqual(listStatusFilter(v, 'tribe_events', 'publish,draft'), ['publish', 'draft']);
      assert.deepEqual(listStatusFilter(v, 'tribe_organizer', 'trash'), ['trash']);
      assert.deepEqual(listStatusFilter(v, 'tribe_events', 'any'), ['any']);
      assert.deepEqual(listStatusFilter(v, 'tribe_events', 'any, trash'), ['any', 'trash']);
      assert.equal(listStatusFilter(v, 'tribe_events', 'foo, bar, publish'), null);
      assert.equal(listStatusFilter(v, 'tribe_events', 'any, foo'), null);
    }
  });
});

describe('defaultListStatuses and listScope (COMPAT 11)', () => {
  it('the default is "any" for users with the edit capability, publish for others', () => {
    for (const role of ['administrator', 'editor', 'author', 'contributor'] as Role[]) {
      assert.deepEqual(defaultListStatuses(viewers[role], 'tribe_events'), { statuses: ANY_STATUSES, label: 'any' });
    }
    assert.deepEqual(defaultListStatuses(viewers.subscriber, 'tribe_events'), { statuses: ['publish'], label: 'publish' });
    assert.deepEqual(defaultListStatuses(ANONYMOUS, 'tribe_venue'), { statuses: ['publish'], label: 'publish' });
    assert.deepEqual([...ANY_STATUSES].sort(), ['draft', 'future', 'pending', 'private', 'publish']);
  });

  it('editors and administrators see everything they ask for', () => {
    for (const role of ['administrator', 'editor'] as Role[]) {
      assert.deepEqual(listScope(viewers[role], 'tribe_events'), { statuses: ANY_STATUSES, label: 'any' });
      assert.deepEqual(listScope(viewers[role], 'tribe_venue', ['trash', 'draft']), { statuses: ['trash', 'draft'], label: 'trash,draft' });
      assert.deepEqual(listScope(viewers[role], 'tribe_events', ['any']), { statuses: ANY_STATUSES, label: 'any' });
      assert.deepEqual(listScope(viewers[role], 'tribe_events', ['any', 'trash', 'draft']), { statuses: [...ANY_STATUSES, 'trash'], label: 'any,trash,draft' });
    }
  });

  it("authors and contributors see others' published records plus their own", () => {
    for (const role of ['author', 'contributor'] as Role[]) {
      const v = viewers[role];
      assert.deepEqual(listScope(v, 'tribe_events'), { statuses: ANY_STATUSES, label: 'any', onlyPublishedOrAuthor: v.id });
      assert.deepEqual(listScope(v, 'tribe_organizer', ['draft']), { statuses: ['draft'], label: 'draft', onlyPublishedOrAuthor: v.id });
      assert.deepEqual(listScope(v, 'tribe_events', ['publish']), { statuses: ['publish'], label: 'publish' });
    }
  });

  it('anonymous users and subscribers see published records', () => {
    assert.deepEqual(listScope(ANONYMOUS, 'tribe_events'), { statuses: ['publish'], label: 'publish' });
    assert.deepEqual(listScope(viewers.subscriber, 'tribe_venue', ['publish']), { statuses: ['publish'], label: 'publish' });
  });
});
