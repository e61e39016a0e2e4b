/**
 * The admin app's three-way merge of the event editor's draft (admin-app/src/lib/merge.ts): what
 * only they changed is taken, what only I changed is kept, the same change on both sides is no
 * question, and only a field both changed differently is a conflict; a field is a group of keys;
 * a save sends only the keys that changed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { changedKeys, threeWay, type FieldGroup } from '../../admin-app/src/lib/merge.js';

interface D {
  title: string;
  excerpt: string;
  website: string;
  startDate: string;
  startTime: string;
  tags: number[];
}
const GROUPS: FieldGroup<D>[] = [
  { name: 'title', keys: ['title'] },
  { name: 'excerpt', keys: ['excerpt'] },
  { name: 'website', keys: ['website'] },
  { name: 'start', keys: ['startDate', 'startTime'] },
  { name: 'tags', keys: ['tags'] },
];
const base: D = { title: 'Quiz', excerpt: '', website: 'https://a.example', startDate: '2027-06-01', startTime: '19:00', tags: [1] };

describe('the editor’s three-way merge', () => {
  it('takes their changes to fields I left, keeps mine, and asks about none', () => {
    const mine = { ...base, excerpt: 'Mine' };
    const theirs = { ...base, title: 'Quiz (theirs)', tags: [1, 2] };
    assert.deepEqual(threeWay(GROUPS, base, mine, theirs), { merged: { ...base, excerpt: 'Mine', title: 'Quiz (theirs)', tags: [1, 2] }, conflicts: [] });
  });

  it('asks only about fields both changed differently; the same change is no question', () => {
    const mine = { ...base, title: 'Mine', website: 'https://same.example', startTime: '20:00' };
    const theirs = { ...base, title: 'Theirs', website: 'https://same.example', startDate: '2027-06-02', excerpt: 'Theirs' };
    const { merged, conflicts } = threeWay(GROUPS, base, mine, theirs);
    // A date and its time are one field: I moved the time, they moved the day.
    assert.deepEqual(conflicts, ['title', 'start']);
    assert.equal(merged.title, 'Mine', 'mine until chosen otherwise');
    assert.equal(merged.excerpt, 'Theirs');
    assert.equal(merged.website, 'https://same.example');
  });

  it('sends only the keys that changed', () => {
    assert.deepEqual(changedKeys({ title: 'a', tags: [1, 2], venue: '' }, { title: 'a', tags: [1], venue: '' }), ['tags']);
    assert.deepEqual(changedKeys({ title: 'a' }, { title: 'a' }), []);
  });
});
