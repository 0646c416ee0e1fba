import { sql, type Kysely } from 'kysely';
import type { Slots } from './prepared.js';
import type { Database } from './schema.js';

// The parts every claim is made of, on both engines: which tickets are due, in what order, and
// what taking one writes. A claim of its own (ticket-attempts.ts) and one that rides on a step's
// commit (`completeStep` there, pg-completion.ts) are built from these.

/** The values a claim runs with; `except` is a ticket it must not take (the one being committed). */
export type ClaimValues = { owner: string; until: number; now: number; limit: number; except?: string };

/** The due tickets a claim takes, first `limit` in claim order; with `skipExcept`, not `v.except`. */
export function dueTickets(db: Kysely<Database>, v: Slots<ClaimValues>, limit: number, skipExcept = false) {
  let due = db
    .selectFrom('tickets')
    .select('id')
    .where('next', 'is not', null)
    .where('run_after', '<=', v.now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', v.now)]))
    // A project at its parallel limit waits; the count is of live leases of its other tickets.
    .where((eb) =>
      eb.or([
        eb('max_parallel', 'is', null),
        eb(
          eb
            .selectFrom('tickets as busy')
            .select((e) => e.fn.countAll<number>().as('n'))
            .whereRef('busy.tenant', '=', 'tickets.tenant')
            .whereRef('busy.project', '=', 'tickets.project')
            .where('busy.lease_until', '>=', v.now),
          '<',
          eb.ref('max_parallel'),
        ),
      ]),
    );
  // A slot is a stand-in, never undefined: whether `except` is used is part of the statement's shape.
  if (skipExcept) due = due.where('id', '<>', v.except!);
  return due.orderBy('priority').orderBy('run_after').orderBy('id').limit(limit);
}

/** Sets the lease and counts the attempt (and a redelivery when the previous holder never finished). */
export function leaseUpdate(db: Kysely<Database>, v: Slots<ClaimValues>) {
  return db.updateTable('tickets').set({
    lease_owner: v.owner,
    lease_until: v.until,
    attempt: sql<number>`attempt + 1`,
    redeliveries: sql<number>`redeliveries + case when lease_owner is null then 0 else 1 end`,
    updated: v.now,
  });
}
