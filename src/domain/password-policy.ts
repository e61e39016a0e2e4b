/**
 * The password policy, checked on the server wherever a password is set (the set-password and
 * reset pages, the account page, the admin API's users, the CLI): at least PASSWORD_MIN_LENGTH
 * characters, and a zxcvbn score (0 to 4, an estimate of how many guesses a cracker needs, from
 * `@zxcvbn-ts` with its common and English dictionaries) of at least PASSWORD_MIN_STRENGTH. The
 * user's own login, name and e-mail address count as known words. The admin app's meter shows the
 * same score, but only this check decides.
 *
 * @example
 *   const refusal = passwordRefusal('correct horse', { minLength: 12, minScore: 3 }, ['ann']);
 *   if (refusal) throw weakPassword(refusal);
 */
import { zxcvbn, zxcvbnOptions } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';
import { ApiError } from './errors.js';

export interface PasswordPolicy {
  minLength: number;
  /** 0 (any) to 4 (very hard to guess) */
  minScore: number;
}

/** Why a password is refused (undefined: it is accepted). */
export interface PasswordRefusal {
  reason: 'too_short' | 'too_weak';
  message: string;
  minLength: number;
  minScore: number;
  score: number;
  /** zxcvbn's hint, in English */
  suggestions: string[];
}

/** Passwords longer than this are scored on their first part (zxcvbn's work grows with length). */
const SCORED_LENGTH = 100;

let ready = false;
function estimator(): typeof zxcvbn {
  if (!ready) {
    // The dictionaries are loaded once, on the first password checked (not at start).
    zxcvbnOptions.setOptions({
      translations: english.translations,
      graphs: common.adjacencyGraphs,
      dictionary: { ...common.dictionary, ...english.dictionary },
    });
    ready = true;
  }
  return zxcvbn;
}

/** zxcvbn's score of a password (0 to 4), with the user's own words as known ones. */
export function passwordScore(password: string, userInputs: string[] = []): { score: number; suggestions: string[]; warning: string } {
  const r = estimator()(
    password.slice(0, SCORED_LENGTH),
    userInputs.filter((w) => w !== ''),
  );
  return { score: r.score, suggestions: r.feedback.suggestions, warning: r.feedback.warning ?? '' };
}

/** Why the policy refuses this password, or undefined when it accepts it. */
export function passwordRefusal(password: string, policy: PasswordPolicy, userInputs: string[] = []): PasswordRefusal | undefined {
  const length = [...password].length;
  const base = { minLength: policy.minLength, minScore: policy.minScore };
  if (length < policy.minLength) {
    return { ...base, reason: 'too_short', score: 0, suggestions: [], message: `The password must be at least ${policy.minLength} characters long.` };
  }
  if (policy.minScore <= 0) return undefined;
  const { score, suggestions, warning } = passwordScore(password, userInputs);
  if (score >= policy.minScore) return undefined;
  const hint = [warning, ...suggestions].filter((s) => s !== '').join(' ');
  return { ...base, reason: 'too_weak', score, suggestions, message: `The password is too easy to guess (strength ${score} of 4, at least ${policy.minScore} needed).${hint ? ' ' + hint : ''}` };
}

/** The WordPress-style error of a refused password: 400 `weak_password`, the reason in `data`. */
export function weakPassword(r: PasswordRefusal, param = 'password'): ApiError {
  return new ApiError('weak_password', r.message, 400, {
    params: { [param]: r.message },
    reason: r.reason,
    score: r.score,
    min_score: r.minScore,
    min_length: r.minLength,
    suggestions: r.suggestions,
  });
}

/** Throw `weak_password` unless the policy accepts the password. */
export function checkPasswordPolicy(password: string, policy: PasswordPolicy, userInputs: string[] = [], param = 'password'): void {
  const r = passwordRefusal(password, policy, userInputs);
  if (r) throw weakPassword(r, param);
}

/** The policy of a configuration (PASSWORD_MIN_LENGTH, PASSWORD_MIN_STRENGTH). */
export const policyOf = (config: { passwordMinLength: number; passwordMinStrength: number }): PasswordPolicy => ({ minLength: config.passwordMinLength, minScore: config.passwordMinStrength });

/** What a strength meter shows: the score, whether the policy accepts the password, and why not. */
export function passwordStrength(
  password: string,
  policy: PasswordPolicy,
  userInputs: string[] = [],
): { score: number; ok: boolean; min_score: number; min_length: number; reason?: string; message?: string } {
  const score = password === '' ? 0 : passwordScore(password, userInputs).score;
  const refusal = passwordRefusal(password, policy, userInputs);
  return { score, ok: refusal === undefined, min_score: policy.minScore, min_length: policy.minLength, ...(refusal ? { reason: refusal.reason, message: refusal.message } : {}) };
}
