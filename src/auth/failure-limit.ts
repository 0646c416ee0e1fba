import { createHash } from 'node:crypto';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors.js';
import { authFailures, type Db, type FailureCount } from '../store/index.js';

/** Who asks for a token: the form's user name and the connection's client address. */
export interface TokenAttempt {
  user: string;
  address: string;
}

interface Subject {
  key: string;
  limit: number;
}

/** A user name's store key: names up to the longest valid one as they are, longer ones hashed. */
function userSubject(name: string): string {
  return name.length <= 128 ? `user:${name}` : `user:sha256:${createHash('sha256').update(name).digest('hex')}`;
}

function tooMany(until: number, now: number): AppError {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  return new AppError('rate_limited', `too many failed token requests; try again in ${seconds} s`, { headers: { 'retry-after': String(seconds) } });
}

/**
 * Limits password guessing: failed token requests are counted per user name and per client
 * address in the store (so every API process sees the same counts), in fixed windows that start
 * with a subject's first failure. Once a subject has as many failures as its limit, every request
 * for it gets 429 until its window ends — the right password included — without a password check.
 *
 * Requests already past that first look when the limit fills (parallel guesses) are checked, but
 * a failure whose atomic count lands past the limit is answered 429 like the rest, and so is a
 * success that finds the limit full afterwards: no more than `limit` answers per window tell a
 * guesser anything. Successes are never counted.
 */
export class FailureLimit {
  private lastSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly settings: Settings,
    private readonly now: () => number,
  ) {}

  /**
   * Runs `check` (the password check) within the limits. `failed` tells which errors of `check`
   * are failures that count; others pass uncounted. Throws 429 `rate_limited` with a
   * `Retry-After` when the user name or the address has no failures left.
   */
  async guard<T>(attempt: TokenAttempt, check: () => Promise<T>, failed: (err: unknown) => boolean): Promise<T> {
    const subjects: Subject[] = [
      { key: userSubject(attempt.user), limit: this.settings.authUserFailures },
      { key: `address:${attempt.address}`, limit: this.settings.authAddressFailures },
    ];
    await this.refuseWhenFull(subjects);
    let result: T;
    try {
      result = await check();
    } catch (err) {
      if (failed(err)) await this.count(subjects);
      throw err;
    }
    await this.refuseWhenFull(subjects);
    return result;
  }

  /** Throws 429 when a subject has used up its failures in its open window. */
  private async refuseWhenFull(subjects: Subject[]): Promise<void> {
    const now = this.now();
    const counts = await authFailures.currentFailures(this.db.kysely, subjects.map((s) => s.key), now);
    const full = subjects.map((s) => counts.get(s.key)).filter((c, i): c is FailureCount => c !== undefined && c.failures >= subjects[i]!.limit);
    if (full.length > 0) throw tooMany(Math.max(...full.map((c) => c.expires)), now);
  }

  /** Counts one failure for each subject; throws 429 when that failure is past a limit. */
  private async count(subjects: Subject[]): Promise<void> {
    const now = this.now();
    const windowMs = this.settings.authFailureWindowSeconds * 1000;
    const counts = await Promise.all(subjects.map((s) => authFailures.addFailure(this.db.kysely, s.key, now, windowMs)));
    await this.sweep(now, windowMs);
    const over = counts.filter((c, i) => c.failures > subjects[i]!.limit);
    if (over.length > 0) throw tooMany(Math.max(...over.map((c) => c.expires)), now);
  }

  /** Deletes ended windows, at most once a window per process. */
  private async sweep(now: number, windowMs: number): Promise<void> {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    await authFailures.deleteExpiredFailures(this.db.kysely, now);
  }
}
