/**
 * The proof of work of submissions (SUBMISSIONS_POW=on): ALTCHA's open protocol (`altcha-lib`, its
 * v1 challenge: find the number n ≤ maxnumber with SHA-256(salt + n) = challenge), no widget and no
 * third party. The challenge is signed with a key kept in the `settings` table (every instance the
 * same) and expires after 10 minutes; a solution is accepted once (its signature is remembered in
 * memory until it expires: per instance).
 *
 * @example
 *   const pow = createProofOfWork(() => secret, 50_000);
 *   const challenge = await pow.challenge(); // { algorithm, challenge, maxnumber, salt, signature }
 *   await pow.verify(base64Payload) // true once
 */
import { createChallenge, verifySolution } from 'altcha-lib/v1';

const EXPIRES_MS = 10 * 60_000;

export interface ProofOfWork {
  challenge(): Promise<{ algorithm: string; challenge: string; maxnumber?: number; salt: string; signature: string }>;
  /** Whether this payload (base64 JSON, or the object) solves a challenge of ours not used before. */
  verify(payload: unknown): Promise<boolean>;
}

export function createProofOfWork(key: () => Promise<string>, maxNumber: number): ProofOfWork {
  const used = new Map<string, number>();
  const forget = () => {
    const now = Date.now();
    for (const [sig, until] of used) if (until < now) used.delete(sig);
  };
  return {
    async challenge() {
      return createChallenge({ hmacKey: await key(), maxnumber: maxNumber, expires: new Date(Date.now() + EXPIRES_MS) });
    },
    async verify(payload) {
      if (typeof payload !== 'string' || payload === '' || payload.length > 2000) return false;
      let parsed: { signature?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { signature?: unknown };
      } catch {
        return false;
      }
      if (typeof parsed?.signature !== 'string') return false;
      forget();
      if (used.has(parsed.signature)) return false;
      let ok = false;
      try {
        ok = await verifySolution(payload, await key(), true);
      } catch {
        ok = false;
      }
      if (ok) used.set(parsed.signature, Date.now() + EXPIRES_MS);
      return ok;
    },
  };
}
