/**
 * Roles, capabilities and per-record checks, against behavior.md §3.2 written out as tables here
 * (not computed from the production code).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANONYMOUS,
  ROLES,
  can,
  canAssignAuthor,
  canAssignTerms,
  canDeletePost,
  canEditPost,
  canManageTerms,
  canReadPost,
  typeCan,
  viewerOf,
  type Role,
  type Viewer,
} from '../../src/domain/permissions.js';
import type { PostType } from '../../src/store/schema.js';

const TYPES: PostType[] = ['tribe_events', 'tribe_venue', 'tribe_organizer'];
const SUFFIX: Record<PostType, string> = { tribe_events: 'tribe_events', tribe_venue: 'tribe_venues', tribe_organizer: 'tribe_organizers' };

/** behavior.md §3.2, "Caps granted per role for all three types". */
const GRANTED: Record<Role, string[]> = {
  administrator: ['read_private', 'edit', 'edit_others', 'edit_private', 'edit_published', 'delete', 'delete_others', 'delete_private', 'delete_published', 'publish'],
  editor: ['read_private', 'edit', 'edit_others', 'edit_private', 'edit_published', 'delete', 'delete_others', 'delete_private', 'delete_published', 'publish'],
  author: ['edit', 'edit_published', 'delete', 'delete_published', 'publish'],
  contributor: ['edit', 'delete'],
  subscriber: [],
};
const ALL_PREFIXES = GRANTED.administrator;

const viewers = Object.fromEntries(ROLES.map((role, i) => [role, viewerOf({ id: i + 1, login: role, role })])) as Record<Role, Viewer>;
const OTHER = 99;

describe('role capabilities (behavior.md §3.2)', () => {
  for (const role of ROLES) {
    it(`${role}: exactly the listed post-type caps, for all three types, and read`, () => {
      const v = viewers[role];
      assert.equal(can(v, 'read'), true);
      for (const type of TYPES) {
        for (const prefix of ALL_PREFIXES) {
          assert.equal(can(v, `${prefix}_${SUFFIX[type]}`), GRANTED[role].includes(prefix), `${role} ${prefix}_${SUFFIX[type]}`);
        }
      }
    });
  }

  it('anonymous has no capability at all', () => {
    assert.equal(can(ANONYMOUS, 'read'), false);
    for (const type of TYPES) for (const prefix of ALL_PREFIXES) assert.equal(can(ANONYMOUS, `${prefix}_${SUFFIX[type]}`), false);
  });

  it('an unknown stored role counts as subscriber', () => {
    const v = viewerOf({ id: 7, login: 'x', role: 'shop_manager' });
    assert.equal(v.role, 'subscriber');
    assert.equal(typeCan(v, 'edit', 'tribe_events'), false);
  });
});

/**
 * WordPress' edit_post/delete_post mapping written as a table: which primitive caps (prefixes)
 * a check needs, for own and other users' records per status.
 */
function needed(verb: 'edit' | 'delete', own: boolean, status: string, preTrash = ''): string[] {
  const published = (s: string) => s === 'publish' || s === 'future';
  if (own) {
    if (published(status) || (status === 'trash' && published(preTrash))) return [`${verb}_published`];
    return [verb];
  }
  if (published(status)) return [`${verb}_others`, `${verb}_published`];
  if (status === 'private') return [`${verb}_others`, `${verb}_private`];
  return [`${verb}_others`];
}

const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

describe('edit_post / delete_post', () => {
  for (const role of ROLES) {
    for (const own of [true, false]) {
      for (const status of STATUSES) {
        for (const preTrash of status === 'trash' ? ['publish', 'draft'] : ['']) {
          const label = `${role} ${own ? 'own' : "others'"} ${status}${preTrash ? ` (was ${preTrash})` : ''}`;
          it(label, () => {
            const v = viewers[role];
            const post = { author_id: own ? v.id : OTHER, status, pre_trash_status: preTrash };
            for (const type of TYPES) {
              const canEdit = needed('edit', own, status, preTrash).every((p) => GRANTED[role].includes(p));
              const canDelete = needed('delete', own, status, preTrash).every((p) => GRANTED[role].includes(p));
              assert.equal(canEditPost(v, type, post), canEdit, `edit ${type}`);
              assert.equal(canDeletePost(v, type, post), canDelete, `delete ${type}`);
            }
          });
        }
      }
    }
  }

  it('the reference cases: contributor own draft yes, own published no, others no; editor others yes', () => {
    const c = viewers.contributor;
    assert.equal(canEditPost(c, 'tribe_events', { author_id: c.id, status: 'draft' }), true);
    assert.equal(canEditPost(c, 'tribe_events', { author_id: c.id, status: 'publish' }), false);
    assert.equal(canEditPost(c, 'tribe_events', { author_id: OTHER, status: 'draft' }), false);
    assert.equal(canEditPost(viewers.editor, 'tribe_events', { author_id: OTHER, status: 'publish' }), true);
    assert.equal(canDeletePost(c, 'tribe_venue', { author_id: OTHER, status: 'publish' }), false);
  });

  it('anonymous can neither edit nor delete, even a record of author 0', () => {
    assert.equal(canEditPost(ANONYMOUS, 'tribe_events', { author_id: 0, status: 'draft' }), false);
    assert.equal(canDeletePost(ANONYMOUS, 'tribe_events', { author_id: 0, status: 'draft' }), false);
  });
});

describe('read_post', () => {
  /** public → everyone; own → read; private → read_private; other non-public → edit_post. */
  function expected(role: Role | null, own: boolean, status: string): boolean {
    if (status === 'publish') return true;
    if (role === null) return false;
    if (own) return true;
    if (status === 'private') return GRANTED[role].includes('read_private');
    return needed('edit', false, status).every((p) => GRANTED[role].includes(p));
  }

  for (const role of [...ROLES, null]) {
    for (const own of role === null ? [false] : [true, false]) {
      for (const status of STATUSES) {
        it(`${role ?? 'anonymous'} ${own ? 'own' : "others'"} ${status}`, () => {
          const v = role === null ? ANONYMOUS : viewers[role];
          for (const type of TYPES) {
            assert.equal(canReadPost(v, type, { author_id: own ? v.id : OTHER, status }), expected(role, own, status), type);
          }
        });
      }
    }
  }
});

describe('terms', () => {
  it('categories are managed by author and up, tags by editor and up (behavior.md §3.3)', () => {
    const manageCategories: Record<Role, boolean> = { administrator: true, editor: true, author: true, contributor: false, subscriber: false };
    const manageTags: Record<Role, boolean> = { administrator: true, editor: true, author: false, contributor: false, subscriber: false };
    for (const role of ROLES) {
      assert.equal(canManageTerms(viewers[role], 'tribe_events_cat'), manageCategories[role], `${role} categories`);
      assert.equal(canManageTerms(viewers[role], 'post_tag'), manageTags[role], `${role} tags`);
    }
    assert.equal(canManageTerms(ANONYMOUS, 'tribe_events_cat'), false);
    assert.equal(canManageTerms(ANONYMOUS, 'post_tag'), false);
  });

  it('assigning terms needs the edit capability (contributor and up)', () => {
    for (const role of ROLES) {
      const expected = role !== 'subscriber';
      assert.equal(canAssignTerms(viewers[role], 'tribe_events_cat'), expected, role);
      assert.equal(canAssignTerms(viewers[role], 'post_tag'), expected, role);
    }
  });
});

describe('canAssignAuthor (our rule: another author needs edit_others_*)', () => {
  it('no author, or yourself, is always allowed', () => {
    for (const role of ROLES) {
      const v = viewers[role];
      assert.equal(canAssignAuthor(v, 'tribe_events', undefined), true);
      assert.equal(canAssignAuthor(v, 'tribe_events', null), true);
      assert.equal(canAssignAuthor(v, 'tribe_events', v.id), true);
    }
  });

  it('someone else: editors and administrators only', () => {
    for (const role of ROLES) {
      for (const type of TYPES) assert.equal(canAssignAuthor(viewers[role], type, OTHER), GRANTED[role].includes('edit_others'), `${role} ${type}`);
    }
    assert.equal(canAssignAuthor(ANONYMOUS, 'tribe_events', OTHER), false);
    assert.equal(canAssignAuthor(ANONYMOUS, 'tribe_events', 0), false);
  });
});
