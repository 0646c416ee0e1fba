import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A subject's failures in its current window. */
export interface FailureCount {
  failures: number;
  expires: number;
}

/**
 * Adds one failure to `subject` atomically and returns the count of its window: the current one
 * when it has not expired at `now`, else a new one of `windowMs`. One statement on both stores,
 * so parallel requests (in any process) each see a distinct count.
 */
export async function addFailure(db: Kysely<Database>, subject: string, now: number, windowMs: number): Promise<FailureCount> {
  return db
    .insertInto('auth_failures')
    .values({ subject, failures: 1, expires: now + windowMs })
    .onConflict((oc) =>
      oc.column('subject').doUpdateSet((eb) => ({
        failures: eb.case().when('auth_failures.expires', '>', now).then(eb('auth_failures.failures', '+', 1)).else(1).end(),
        expires: eb.case().when('auth_failures.expires', '>', now).then(eb.ref('auth_failures.expires')).else(now + windowMs).end(),
      })),
    )
    .returning(['failures', 'expires'])
    .executeTakeFirstOrThrow()
    .then((r) => ({ failures: Number(r.failures), expires: Number(r.expires) }));
}

/** The failures of the given subjects in windows still open at `now`, by subject. */
export async function currentFailures(db: Kysely<Database>, subjects: readonly string[], now: number): Promise<Map<string, FailureCount>> {
  const rows = await db.selectFrom('auth_failures').select(['subject', 'failures', 'expires']).where('subject', 'in', subjects).where('expires', '>', now).execute();
  return new Map(rows.map((r) => [r.subject, { failures: Number(r.failures), expires: Number(r.expires) }]));
}

/** Deletes windows that ended before `now`. */
export async function deleteExpiredFailures(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('expires', '<=', now).execute();
}
