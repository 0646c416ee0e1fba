import type { Kysely, Selectable } from 'kysely';
import { Prepared } from './prepared.js';
import type { Database, StepEventsTable } from './schema.js';

export type StepEventRow = Selectable<StepEventsTable>;

const start = new Prepared<{ ticket: string; attempt: number; step: string; now: number }, unknown>((db, v) =>
  db
    .insertInto('step_events')
    .values({ ticket: v.ticket, attempt: v.attempt, step: v.step, started: v.now, ended: null, outcome: null, error_code: null })
    .onConflict((oc) => oc.columns(['ticket', 'attempt']).doNothing()),
);

/**
 * Records that an attempt of a step started (one insert; the primary key is ticket + attempt).
 * `root` is the database `db` is a transaction of, which keeps the statement compiled.
 */
export async function recordStart(db: Kysely<Database>, ticket: string, attempt: number, step: string, now: number, root: Kysely<Database> = db): Promise<void> {
  await start.execute(root, db, { ticket, attempt, step, now });
}

const end = new Prepared<{ ticket: string; attempt: number; outcome: string; errorCode: string | null; now: number }, unknown>((db, v) =>
  db.updateTable('step_events').set({ ended: v.now, outcome: v.outcome, error_code: v.errorCode }).where('ticket', '=', v.ticket).where('attempt', '=', v.attempt),
);

/** Records how an attempt ended (`root` as for {@link recordStart}). */
export async function recordEnd(db: Kysely<Database>, ticket: string, attempt: number, outcome: 'succeeded' | 'failed', errorCode: string | null, now: number, root: Kysely<Database> = db): Promise<void> {
  await end.execute(root, db, { ticket, attempt, outcome, errorCode, now });
}

/** Forgets an attempt that changed nothing (a deferred aggregate that found its parts unfinished). */
export async function forget(db: Kysely<Database>, ticket: string, attempt: number): Promise<void> {
  await db.deleteFrom('step_events').where('ticket', '=', ticket).where('attempt', '=', attempt).execute();
}

/** Every recorded attempt of a ticket, oldest first. */
export async function listForTicket(db: Kysely<Database>, ticket: string): Promise<StepEventRow[]> {
  return db.selectFrom('step_events').selectAll().where('ticket', '=', ticket).orderBy('attempt').execute();
}

/** An attempt that never ended while a later attempt of its ticket exists: its worker died or lost the lease. */
export interface DeadAttempt {
  ticket: string;
  tenant: string;
  project: string;
  attempt: number;
}

/** Dead attempts whose files have not been cleaned yet (their outcome is still unset). */
export async function deadAttempts(db: Kysely<Database>, limit: number): Promise<DeadAttempt[]> {
  return db
    .selectFrom('step_events as e')
    .innerJoin('tickets as t', 't.id', 'e.ticket')
    .select(['e.ticket as ticket', 't.tenant as tenant', 't.project as project', 'e.attempt as attempt'])
    .where('e.outcome', 'is', null)
    .whereRef('e.attempt', '<', 't.attempt')
    .orderBy('e.started')
    .limit(limit)
    .execute();
}

/**
 * Marks a dead attempt as redelivered once its files are gone; true for the one caller that did
 * (several processes may clean the same attempt: the deletes are idempotent, the mark is once).
 */
export async function markRedelivered(db: Kysely<Database>, ticket: string, attempt: number): Promise<boolean> {
  const r = await db.updateTable('step_events').set({ outcome: 'redelivered' }).where('ticket', '=', ticket).where('attempt', '=', attempt).where('outcome', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
