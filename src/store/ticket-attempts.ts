import { sql, type Kysely } from 'kysely';
import { dueTickets, leaseUpdate, type ClaimValues } from './claim-query.js';
import type { Dialect } from './db.js';
import { artifactColumnList, artifactColumns, commitStepPostgres } from './pg-completion.js';
import { fieldSlots, Prepared, rowSlots } from './prepared.js';
import type { Database } from './schema.js';
import { addUsage, type StatsRow } from './stats.js';
import { forget as forgetAttempt, recordEnd, recordStart } from './step-events.js';
import type { ArtifactRow, TicketPatch, TicketRow } from './tickets.js';

// A ticket's attempts from the worker's side: claimed under a lease, renewed, ended by
// committing the step's outcome, or handed back. These statements run for every ticket, so each
// is compiled once (Prepared).

/**
 * Claims up to `limit` due tickets for `owner`: sets the lease, bumps the attempt, and counts a
 * redelivery when the previous holder never finished (its lease ran out). Atomic on both engines:
 * PostgreSQL skips rows other workers hold; SQLite runs one writer at a time. The start of each
 * claimed attempt's step goes into the timeline with it: on SQLite in the same transaction, on
 * PostgreSQL in the same statement (a data-modifying WITH), which is one round trip instead of
 * four (BEGIN, the claim, the timeline, COMMIT).
 */
export async function claimDue(db: Kysely<Database>, dialect: Dialect, owner: string, now: number, leaseMs: number, limit: number): Promise<TicketRow[]> {
  const values = { owner, until: now + leaseMs, now, limit };
  if (dialect.skipLocked) return (await claimLockedWithStart.execute(db, db, values)).rows;
  return db.transaction().execute(async (trx) => {
    // One ticket per statement: a claimed ticket's lease keeps the next statement from finding it.
    const claimed: TicketRow[] = [];
    while (claimed.length < limit) {
      const t = await claimOneSqlite(db, trx, values);
      if (!t) break;
      claimed.push(t);
    }
    return claimed;
  });
}

/** SQLite, inside a transaction: the next due ticket (other than `except` when given) claimed, its attempt's start in the timeline. */
async function claimOneSqlite(db: Kysely<Database>, trx: Kysely<Database>, values: ClaimValues): Promise<TicketRow | undefined> {
  const { rows } = values.except === undefined ? await claimNext.execute(db, trx, values) : await claimNextExcept.execute(db, trx, values as ClaimValues & { except: string });
  const [t] = rows;
  if (t) await recordStart(trx, t.id, t.attempt, t.next!, values.now, db);
  return t;
}

/**
 * SQLite: the next due ticket, claimed. Written `id = (…)`, not `id in (…)`: SQLite ran the
 * `in` form of this update in ~600–670 µs against ~75 µs (500 due tickets, 1 claimed each time).
 */
const claimNext = new Prepared<ClaimValues, TicketRow>((db, v) =>
  leaseUpdate(db, v)
    .where('id', '=', dueTickets(db, v, 1))
    .returningAll(),
);

/** SQLite: the same, passing over the ticket whose step is being committed. */
const claimNextExcept = new Prepared<ClaimValues & { except: string }, TicketRow>((db, v) =>
  leaseUpdate(db, v)
    .where('id', '=', dueTickets(db, v, 1, true))
    .returningAll(),
);

/** PostgreSQL: the claim and the start of each claimed attempt in the timeline, as one statement; rows other workers hold are skipped. */
const claimLockedWithStart = new Prepared<ClaimValues, TicketRow>((db, v) =>
  db
    .with('claimed', () =>
      leaseUpdate(db, v)
        .where('id', 'in', dueTickets(db, v, v.limit).forUpdate().skipLocked())
        .returningAll(),
    )
    .with('started', (w) =>
      w
        .insertInto('step_events')
        .columns(['ticket', 'attempt', 'step', 'started'])
        .expression((eb) => eb.selectFrom('claimed').select((c) => [c.ref('claimed.id').as('ticket'), c.ref('claimed.attempt').as('attempt'), c.ref('claimed.next').as('step'), sql<number>`cast(${v.now} as bigint)`.as('started')]))
        .onConflict((oc) => oc.columns(['ticket', 'attempt']).doNothing()),
    )
    .selectFrom('claimed')
    .selectAll(),
);

/** Extends a lease; false when the attempt is no longer ours. */
export async function renewLease(db: Kysely<Database>, id: string, attempt: number, owner: string, until: number): Promise<boolean> {
  const res = await db
    .updateTable('tickets')
    .set({ lease_until: until })
    .where('id', '=', id)
    .where('attempt', '=', attempt)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** How an attempt ended, for the timeline: an outcome, or `forget` for a deferral that changed nothing. */
export type AttemptEnd = { outcome: 'succeeded' | 'failed'; errorCode: string | null; at: number } | 'forget';

/** What a step's commit did: whether the attempt still held the lease, and the ticket it claimed next, if asked to. */
export interface StepCommit {
  committed: boolean;
  claimed: TicketRow | null;
}

/**
 * Commits a step's outcome and the next step together, with the artifacts it produced, its
 * usage counters and the end of the attempt in the timeline, only if `attempt` still holds
 * the lease. `committed: false` means a newer attempt owns the ticket (and nothing was
 * written). SQLite runs it as a transaction; PostgreSQL as one statement ({@link commitStepPostgres}).
 *
 * With `claim`, the same transaction also claims the next due ticket (never the one committed)
 * for `ref.owner`, as {@link claimDue} would: the slot the step frees is filled without a
 * transaction of its own, which was one of a ticket's three commits. On SQLite only after a
 * commit that found its attempt; on PostgreSQL the claim runs either way, and counts the
 * committed ticket's lease as still live toward its project's parallel limit (the statement
 * reads the rows as they were before it).
 */
export async function completeStep(
  db: Kysely<Database>,
  dialect: Dialect,
  ref: { id: string; attempt: number; owner: string },
  patch: TicketPatch,
  artifacts: ArtifactRow[],
  usage: readonly StatsRow[] = [],
  end?: AttemptEnd,
  claim?: { now: number; until: number },
): Promise<StepCommit> {
  const columns = patchColumns(patch);
  // A name stored again (a redelivery's rewrite) is one row: PostgreSQL refuses a statement that
  // would update one row twice, so the last row of a name wins.
  const unique = [...new Map(artifacts.map((a) => [a.name, a])).values()];
  if (dialect.kind === 'postgres') return commitStepPostgres(db, ref, { columns, set: patch }, unique, usage, end, claim);
  return db.transaction().execute(async (trx) => {
    const res = await completion.execute(db, trx, { set: patch, id: ref.id, attempt: ref.attempt, owner: ref.owner }, columns.join(','));
    if (Number(res.numAffectedRows) !== 1) return { committed: false, claimed: null };
    if (unique.length > 0) await artifactInsert.execute(db, trx, { rows: unique }, String(unique.length));
    await addUsage(trx, usage, db);
    if (end === 'forget') await forgetAttempt(trx, ref.id, ref.attempt);
    else if (end) await recordEnd(trx, ref.id, ref.attempt, end.outcome, end.errorCode, end.at, db);
    const claimed = claim ? await claimOneSqlite(db, trx, { owner: ref.owner, until: claim.until, now: claim.now, limit: 1, except: ref.id }) : undefined;
    return { committed: true, claimed: claimed ?? null };
  });
}

/** The columns a patch sets: as Kysely's own update does, a column whose value is undefined is left out. */
const patchColumns = (patch: TicketPatch) => (Object.keys(patch) as (keyof TicketPatch)[]).filter((c) => patch[c] !== undefined).sort();

/** A ticket's row as {@link completeStep} leaves it once it has committed `patch`: the lease cleared. */
export function committedRow(ticket: TicketRow, patch: TicketPatch): TicketRow {
  const set = Object.fromEntries(patchColumns(patch).map((c) => [c, patch[c]])) as Partial<TicketRow>;
  return { ...ticket, ...set, lease_owner: null, lease_until: null };
}

/** A step's outcome under its attempt; the shape is the patch's columns, comma-separated. */
const completion = new Prepared<{ set: TicketPatch; id: string; attempt: number; owner: string }, unknown>((db, v, shape) =>
  db
    .updateTable('tickets')
    .set({ ...fieldSlots<TicketPatch, typeof v>(v, 'set', shape.split(',').filter(Boolean)), lease_owner: null, lease_until: null })
    .where('id', '=', v.id)
    .where('attempt', '=', v.attempt)
    .where('lease_owner', '=', v.owner),
);

/** Artifact rows, one statement for all; the shape is their number. */
const artifactInsert = new Prepared<{ rows: readonly ArtifactRow[] }, unknown>((db, v, shape) => {
  const replaced = Object.fromEntries(artifactColumns.map((c) => [c, sql.ref(`excluded.${c}`)]));
  const rows = rowSlots<ArtifactRow, typeof v>(v, 'rows', Number(shape), artifactColumnList);
  return db
    .insertInto('artifacts')
    .values(rows)
    .onConflict((oc) => oc.columns(['ticket', 'name']).doUpdateSet(replaced));
});

/**
 * Hands a running attempt's ticket back (its worker is shutting down): no lease, due now, and
 * since the lease is cleared the next claim does not count it as a redelivery. The attempt
 * number stays, so a late result of the released attempt can no longer be committed.
 */
export async function releaseLease(db: Kysely<Database>, ref: { id: string; attempt: number; owner: string }, now: number): Promise<boolean> {
  const res = await db
    .updateTable('tickets')
    .set({ lease_owner: null, lease_until: null, run_after: now, updated: now })
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
