/**
 * The actor's keys: an RSA pair (HTTP Signatures, as Mastodon reads them) and an Ed25519 pair
 * (Object Integrity Proofs), generated once and kept in the database. The first instance to start
 * stores them; the others, and later starts, read those. Each calendar's actor has its own, in its
 * calendar's rows, made when it is first needed; another calendar's are stored with its id after
 * their kind (`Ed25519@7`), so that each calendar has a row of each kind.
 *
 * @example const pairs = await actorKeyPairs(services.federationStore, clock.nowGmt()); // [rsa, ed25519]
 */
import type { webcrypto } from 'node:crypto';
import { exportJwk, generateCryptoKeyPair, importJwk } from '@fedify/fedify';
import type { FederationStore } from '../domain/federation-store.js';
import { DEFAULT_CALENDAR_ID, calendarIdNow } from '../domain/calendars.js';

const KINDS = ['RSASSA-PKCS1-v1_5', 'Ed25519'] as const;

/** A kind as stored in the calendar at hand. */
const storedKind = (kind: string) => {
  const id = calendarIdNow();
  return id === DEFAULT_CALENDAR_ID ? kind : `${kind}@${id}`;
};

/** The key pairs of the calendar at hand's actor, RSA first; made and stored when missing (`now`: when, UTC). */
export async function actorKeyPairs(store: FederationStore, now: string): Promise<webcrypto.CryptoKeyPair[]> {
  let stored = await store.readKeys();
  if (KINDS.some((kind) => !stored.some((k) => k.kind === storedKind(kind)))) {
    const made = [];
    for (const kind of KINDS) {
      if (stored.some((k) => k.kind === storedKind(kind))) continue;
      const pair = await generateCryptoKeyPair(kind);
      made.push({ kind: storedKind(kind), private_jwk: JSON.stringify(await exportJwk(pair.privateKey)), public_jwk: JSON.stringify(await exportJwk(pair.publicKey)) });
    }
    await store.insertKeysOnce(made, now);
    stored = await store.readKeys();
  }
  const pairs: webcrypto.CryptoKeyPair[] = [];
  for (const kind of KINDS) {
    const row = stored.find((k) => k.kind === storedKind(kind));
    if (!row) throw new Error(`federation: no ${kind} key could be stored for calendar ${calendarIdNow()}`);
    pairs.push({ privateKey: await importJwk(JSON.parse(row.private_jwk), 'private'), publicKey: await importJwk(JSON.parse(row.public_jwk), 'public') });
  }
  return pairs;
}
