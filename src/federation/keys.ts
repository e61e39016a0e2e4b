/**
 * The actor's keys: an RSA pair (HTTP Signatures, as Mastodon reads them) and an Ed25519 pair
 * (Object Integrity Proofs), generated once and kept in the database. The first instance to start
 * stores them; the others, and later starts, read those. Each calendar's actor has its own, in its
 * calendar's rows (their key is the calendar and the kind), made when it is first needed.
 *
 * @example const pairs = await actorKeyPairs(services.federationStore, clock.nowGmt()); // [rsa, ed25519]
 */
import type { webcrypto } from 'node:crypto';
import { exportJwk, generateCryptoKeyPair, importJwk } from '@fedify/fedify';
import type { FederationStore } from '../domain/federation-store.js';

const KINDS = ['RSASSA-PKCS1-v1_5', 'Ed25519'] as const;

/** The key pairs of the calendar at hand's actor, RSA first; made and stored when missing (`now`: when, UTC). */
export async function actorKeyPairs(store: FederationStore, now: string): Promise<webcrypto.CryptoKeyPair[]> {
  let stored = await store.readKeys();
  if (stored.length < KINDS.length) {
    const made = [];
    for (const kind of KINDS) {
      if (stored.some((k) => k.kind === kind)) continue;
      const pair = await generateCryptoKeyPair(kind);
      made.push({ kind, private_jwk: JSON.stringify(await exportJwk(pair.privateKey)), public_jwk: JSON.stringify(await exportJwk(pair.publicKey)) });
    }
    await store.insertKeysOnce(made, now);
    stored = await store.readKeys();
  }
  const pairs: webcrypto.CryptoKeyPair[] = [];
  for (const kind of KINDS) {
    const row = stored.find((k) => k.kind === kind)!;
    pairs.push({ privateKey: await importJwk(JSON.parse(row.private_jwk), 'private'), publicKey: await importJwk(JSON.parse(row.public_jwk), 'public') });
  }
  return pairs;
}
