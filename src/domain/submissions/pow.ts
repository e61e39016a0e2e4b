/**
 * The proof of work of submissions (SUBMISSIONS_POW=on): ALTCHA's open protocol (`altcha-lib`, its
 * v1 challenge: find the number n ≤ maxnumber with SHA-256(salt + n) = challenge), no widget and no
 * third party. The challenge is signed with a key kept in the `settings` table (every instance the
 * same) and expires after 10 minutes; a solution is accepted once, on every instance: `useOnce`
 * notes its signature in the database until the challenge expires, and only the first note of a
 * signature wins (store/submissions.ts `usePowSolution`), however many copies arrive at once.
 *
 * @example
 *   const pow = createProofOfWork(() => secret, 50_000, (signature, untilMs) => usePowSolution(db, signature, gmt(untilMs)));
 *   const challenge = await pow.challenge(); // { algorithm, challenge, maxnumber, salt, signature }
 *   await pow.verify(base64Payload) // true once
 */
import { createChallenge, verifySolution } from 'altcha-lib/v1';

/** How long a challenge is valid (and a used solution remembered). */
export const POW_EXPIRES_MS = 10 * 60_000;

export interface ProofOfWork {
  challenge(): Promise<{ algorithm: string; challenge: string; maxnumber?: number; salt: string; signature: string }>;
  /** Whether this payload (base64 JSON) solves a challenge of ours not used before (then it is used). */
  verify(payload: unknown): Promise<boolean>;
}

/**
 * `useOnce(signature, untilMs)`: note a solved challenge's signature as used until `untilMs`; true
 * the first time, false when it was noted before (by any instance).
 */
export function createProofOfWork(key: () => Promise<string>, maxNumber: number, useOnce: (signature: string, untilMs: number) => Promise<boolean>): ProofOfWork {
  return {
    async challenge() {
      return createChallenge({ hmacKey: await key(), maxnumber: maxNumber, expires: new Date(Date.now() + POW_EXPIRES_MS) });
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
      let ok = false;
      try {
        ok = await verifySolution(payload, await key(), true);
      } catch {
        ok = false;
      }
      // A verified signature is our HMAC (64 hex digits); its challenge expires within POW_EXPIRES_MS.
      return ok && (await useOnce(parsed.signature, Date.now() + POW_EXPIRES_MS));
    },
  };
}
