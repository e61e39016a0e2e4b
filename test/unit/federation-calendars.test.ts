/**
 * Which actor (so which calendar) a federation request is for, told from the request alone: an
 * actor's URL, a WebFinger resource, the object of an activity posted to the shared inbox; and the
 * URLs of the default calendar's actor (as they always were) and of another calendar's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activityTargetOf, actorIdentifierOf, webFingerIdentifierOf } from '../../src/federation/routes.js';
import { federationUrls } from '../../src/federation/objects.js';

const ORIGIN = 'https://events.example';
const body = (doc: unknown) => Buffer.from(JSON.stringify(doc));

describe('federation: the calendar a request names', () => {
  it('reads an actor’s identifier from its URLs, and nothing from others', () => {
    assert.equal(actorIdentifierOf(`${ORIGIN}/federation/actors/north`, ORIGIN), 'north');
    assert.equal(actorIdentifierOf(`${ORIGIN}/federation/actors/north/events/12`, ORIGIN), 'north');
    assert.equal(actorIdentifierOf(`${ORIGIN}/federation/actors/north#main-key`, ORIGIN), 'north');
    assert.equal(actorIdentifierOf(`${ORIGIN}/federation/events/12`, ORIGIN), undefined);
    assert.equal(actorIdentifierOf(`https://elsewhere.example/federation/actors/north`, ORIGIN), undefined);
    assert.equal(actorIdentifierOf(`${ORIGIN}/federation/actors/%E0%A4%A`, ORIGIN), undefined);
    assert.equal(actorIdentifierOf(42, ORIGIN), undefined);
  });

  it('reads a WebFinger resource: an account or an actor’s URL', () => {
    assert.equal(webFingerIdentifierOf('acct:north@events.example', ORIGIN), 'north');
    assert.equal(webFingerIdentifierOf(`${ORIGIN}/federation/actors/north`, ORIGIN), 'north');
    assert.equal(webFingerIdentifierOf('https://elsewhere.example/users/bob', ORIGIN), undefined);
    assert.equal(webFingerIdentifierOf(undefined, ORIGIN), undefined);
  });

  it('routes a shared inbox’s activity by its object', () => {
    const north = `${ORIGIN}/federation/actors/north`;
    assert.equal(activityTargetOf(body({ type: 'Follow', actor: 'https://m.example/users/a', object: north }), ORIGIN), 'north');
    // An Undo of a Follow, the Follow inlined or named by its object.
    assert.equal(activityTargetOf(body({ type: 'Undo', object: { type: 'Follow', id: 'https://m.example/f/1', object: north } }), ORIGIN), 'north');
    // A Like of one of north's objects.
    assert.equal(activityTargetOf(body({ type: 'Like', object: `${north}/events/7` }), ORIGIN), 'north');
    assert.equal(activityTargetOf(body({ type: 'Announce', object: [`https://m.example/n/1`, `${north}/events/7`] }), ORIGIN), 'north');
    // None of ours: the default calendar's (a remote actor's Delete of itself, a default object).
    assert.equal(activityTargetOf(body({ type: 'Delete', actor: 'https://m.example/users/a', object: 'https://m.example/users/a' }), ORIGIN), undefined);
    assert.equal(activityTargetOf(body({ type: 'Like', object: `${ORIGIN}/federation/events/7` }), ORIGIN), undefined);
    assert.equal(activityTargetOf(Buffer.from('not json'), ORIGIN), undefined);
    assert.equal(activityTargetOf(undefined, ORIGIN), undefined);
    // Deeply nested objects are not followed without end.
    let deep: unknown = north;
    for (let i = 0; i < 10; i++) deep = { object: deep };
    assert.equal(activityTargetOf(body({ type: 'Undo', object: deep }), ORIGIN), undefined);
  });

  it('keeps the default calendar’s URLs and puts another calendar’s objects under its actor', () => {
    const home = federationUrls(ORIGIN, 'events');
    assert.equal(home.actor, `${ORIGIN}/federation/actors/events`);
    assert.equal(home.object(3), `${ORIGIN}/federation/events/3`);
    assert.equal(home.activity('create-3-9'), `${ORIGIN}/federation/activities/create-3-9`);
    const north = federationUrls(ORIGIN, 'north', true);
    assert.equal(north.actor, `${ORIGIN}/federation/actors/north`);
    assert.equal(north.inbox, `${ORIGIN}/federation/actors/north/inbox`);
    assert.equal(north.sharedInbox, `${ORIGIN}/federation/inbox`);
    assert.equal(north.object(3), `${ORIGIN}/federation/actors/north/events/3`);
    assert.equal(north.activity('create-3-9'), `${ORIGIN}/federation/actors/north/activities/create-3-9`);
  });
});
