import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Dialect } from './db.js';
import type { ArtifactsTable, Database, TicketsTable } from './schema.js';
import { Prepared, rowValues } from './prepared.js';
import { addUsage, type StatsRow } from './stats.js';
import { forget as forgetAttempt, recordEnd, recordStart } from './step-events.js';

export type TicketRow = Selectable<TicketsTable>;
export type ArtifactRow = Selectable<ArtifactsTable>;
export type TicketPatch = Updateable<TicketsTable>;

/** A ticket by id. */
export async function findTicket(db: Kysely<Database>, id: string): Promise<TicketRow | undefined> {
  return db.selectFrom('tickets').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A ticket by id, only if it belongs to that tenant and project. */
export async function findProjectTicket(db: Kysely<Database>, tenant: string, project: string, id: string): Promise<TicketRow | undefined> {
  return db.selectFrom('tickets').selectAll().where('id', '=', id).where('tenant', '=', tenant).where('project', '=', project).executeTakeFirst();
}

/** Ids of the open tickets of a project, oldest first. */
export async function openTicketIds(db: Kysely<Database>, tenant: string, project: string): Promise<string[]> {
  const rows = await db.selectFrom('tickets').select('id').where('tenant', '=', tenant).where('project', '=', project).where('complete', '=', 0).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/**
 * Claims up to `limit` due tickets for `owner`: sets the lease, bumps the attempt, and counts a
 * redelivery when the previous holder never finished (its lease ran out). Atomic on both engines:
 * PostgreSQL skips rows other workers hold; SQLite runs one writer at a time. The start of each
 * claimed attempt's step goes into the timeline in the same transaction.
 */
export async function claimDue(db: Kysely<Database>, dialect: Dialect, owner: string, now: number, leaseMs: number, limit: number): Promise<TicketRow[]> {
  return db.transaction().execute(async (trx) => {
    const { rows: claimed } = await (dialect.skipLocked ? claimLocked : claim).execute(db, trx, { owner, until: now + leaseMs, now, limit });
    for (const t of claimed) await recordStart(trx, t.id, t.attempt, t.next!, now, db);
    return claimed;
  });
}

/** The claim as one statement; PostgreSQL skips the rows other workers hold. */
function claimStatement(skipLocked: boolean): Prepared<{ owner: string; until: number; now: number; limit: number }, TicketRow> {
  return new Prepared((db, v) => {
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
      )
      .orderBy('priority')
      .orderBy('run_after')
      .orderBy('id')
      .limit(v.limit);
    if (skipLocked) due = due.forUpdate().skipLocked();
    return db
      .updateTable('tickets')
      .set({
        lease_owner: v.owner,
        lease_until: v.until,
        attempt: sql<number>`attempt + 1`,
        redeliveries: sql<number>`redeliveries + case when lease_owner is null then 0 else 1 end`,
        updated: v.now,
      })
      .where('id', 'in', due)
      .returningAll();
  });
}
const claim = claimStatement(false);
const claimLocked = claimStatement(true);

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

/** The artifact columns an upsert of an existing (ticket, name) replaces. */
const artifactColumns = ['blob_key', 'size', 'content_type', 'kind', 'keep_until', 'keep_rule', 'created', 'data'] as const satisfies readonly (keyof ArtifactsTable)[];

/**
 * Commits a step's outcome and the next step together, with the artifacts it produced, its
 * usage counters and the end of the attempt in the timeline, only if `attempt` still holds
 * the lease. False means a newer attempt owns the ticket (and nothing was written).
 */
export async function completeStep(
  db: Kysely<Database>,
  ref: { id: string; attempt: number; owner: string },
  patch: TicketPatch,
  artifacts: ArtifactRow[],
  usage: readonly StatsRow[] = [],
  end?: AttemptEnd,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const columns = Object.keys(patch).sort() as (keyof TicketPatch)[];
    const values: Record<string, unknown> = { id: ref.id, attempt: ref.attempt, owner: ref.owner };
    for (const c of columns) values[`set_${c}`] = patch[c];
    const res = await completion.execute(db, trx, values, columns.join(','));
    if (Number(res.numAffectedRows) !== 1) return false;
    // A name stored again (a redelivery's rewrite) is one row: PostgreSQL refuses a statement that
    // would update one row twice, so the last row of a name wins.
    const unique = [...new Map(artifacts.map((a) => [a.name, a])).values()];
    if (unique.length > 0) await artifactInsert.execute(db, trx, rowValues(unique, artifactColumnList), String(unique.length));
    await addUsage(trx, usage, db);
    if (end === 'forget') await forgetAttempt(trx, ref.id, ref.attempt);
    else if (end) await recordEnd(trx, ref.id, ref.attempt, end.outcome, end.errorCode, end.at, db);
    return true;
  });
}

/** A step's outcome under its attempt; the shape is the patch's columns, comma-separated. */
const completion = new Prepared<Record<string, unknown>, unknown>((db, v, shape) =>
  db
    .updateTable('tickets')
    .set({ ...Object.fromEntries(shape.split(',').filter(Boolean).map((c) => [c, v[`set_${c}`]])), lease_owner: null, lease_until: null })
    .where('id', '=', v.id as string)
    .where('attempt', '=', v.attempt as number)
    .where('lease_owner', '=', v.owner as string),
);

const artifactColumnList = ['ticket', 'name', ...artifactColumns] as const;

/** Artifact rows, one statement for all; the shape is their number. */
const artifactInsert = new Prepared<Record<string, unknown>, unknown>((db, v, shape) => {
  const replaced = Object.fromEntries(artifactColumns.map((c) => [c, sql.ref(`excluded.${c}`)]));
  const rows = Array.from({ length: Number(shape) }, (_, i) => Object.fromEntries(artifactColumnList.map((c) => [c, v[`${i}_${c}`]])) as ArtifactRow);
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

/** Marks a ticket's output shipped. */
export async function markShipped(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('tickets').set({ shipped: 1, updated: now }).where('id', '=', id).execute();
}

/** The stored files of a ticket. */
export async function listArtifacts(db: Kysely<Database>, ticket: string): Promise<ArtifactRow[]> {
  return db.selectFrom('artifacts').selectAll().where('ticket', '=', ticket).orderBy('name').execute();
}

/** One stored file by its served name (`<ticket><extension>`). */
export async function findArtifactByName(db: Kysely<Database>, name: string): Promise<ArtifactRow | undefined> {
  return db.selectFrom('artifacts').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Deletes the tickets (and artifact rows) of a tenant or project; returns blob keys to remove. */
export async function deleteTicketsOf(db: Kysely<Database>, tenant: string, project?: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    let ids = trx.selectFrom('tickets').select('id').where('tenant', '=', tenant);
    if (project !== undefined) ids = ids.where('project', '=', project);
    // A file kept in its row (data) has nothing in the blob store.
    const artifacts = await trx.selectFrom('artifacts').select('blob_key').where('ticket', 'in', ids).where('data', 'is', null).execute();
    const inputs = await ids.clearSelect().select('input_key').where('input_key', 'is not', null).execute();
    await trx.deleteFrom('artifacts').where('ticket', 'in', ids).execute();
    let del = trx.deleteFrom('tickets').where('tenant', '=', tenant);
    if (project !== undefined) del = del.where('project', '=', project);
    await del.execute();
    return [...artifacts.map((a) => a.blob_key), ...inputs.map((i) => i.input_key!)];
  });
}

/** Tickets a project accepted since `since` (fair priority: the recent request rate). */
export async function countCreatedSince(db: Kysely<Database>, tenant: string, project: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant', '=', tenant)
    .where('project', '=', project)
    .where('created', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Tickets counted against quotas in a period, for one project or (project omitted) the tenant. */
export async function quotaUsage(db: Kysely<Database>, tenant: string, period: string, project?: string): Promise<number> {
  let q = db.selectFrom('quota_usage').select((eb) => eb.fn.sum<number>('tickets').as('n')).where('tenant', '=', tenant).where('period', '=', period);
  if (project !== undefined) q = q.where('project', '=', project);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Inserts tickets and counts them against the quota period, in one transaction. With `startedAt`,
 * rows stored already leased (handed straight to a worker) get the start of their attempt in
 * the timeline, as a claim would record it.
 */
export async function insertTicketsCounted(db: Kysely<Database>, rows: TicketRow[], period: string, startedAt?: number): Promise<void> {
  if (rows.length === 0) return;
  const { tenant, project } = rows[0]!;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 200) await trx.insertInto('tickets').values(rows.slice(i, i + 200)).execute();
    if (startedAt !== undefined) for (const t of rows) if (t.lease_owner !== null) await recordStart(trx, t.id, t.attempt, t.next!, startedAt, db);
    await trx
      .insertInto('quota_usage')
      .values({ tenant, project, period, tickets: rows.length })
      .onConflict((oc) => oc.columns(['tenant', 'project', 'period']).doUpdateSet({ tickets: sql<number>`quota_usage.tickets + ${rows.length}` }))
      .execute();
  });
}

/** The parts waiting for an aggregate ticket, in input order. */
export async function aggregateParts(db: Kysely<Database>, aggregateId: string): Promise<TicketRow[]> {
  return db.selectFrom('tickets').selectAll().where('aggregate_id', '=', aggregateId).orderBy('part_index').execute();
}

/** Makes a waiting ticket due now (an aggregate whose parts just finished). */
export async function makeDue(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('tickets').set({ run_after: now }).where('id', '=', id).where('complete', '=', 0).where('lease_owner', 'is', null).execute();
}

/**
 * Inserts streamed batches of tickets (fanout parts) and an optional aggregate ticket in one
 * transaction, counting them against the quota period. Returns how many parts were inserted;
 * a throw from the stream rolls everything back.
 */
export async function insertTicketStream(db: Kysely<Database>, batches: AsyncIterable<TicketRow[]>, extra: TicketRow | null, period: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let count = 0;
    let first: TicketRow | undefined;
    for await (const rows of batches) {
      for (let i = 0; i < rows.length; i += 200) await trx.insertInto('tickets').values(rows.slice(i, i + 200)).execute();
      count += rows.length;
      first ??= rows[0];
    }
    if (count === 0 || !first) return 0;
    if (extra) await trx.insertInto('tickets').values(extra).execute();
    await trx
      .insertInto('quota_usage')
      .values({ tenant: first.tenant, project: first.project, period, tickets: count })
      .onConflict((oc) => oc.columns(['tenant', 'project', 'period']).doUpdateSet({ tickets: sql<number>`quota_usage.tickets + ${count}` }))
      .execute();
    return count;
  });
}

/** How many parts of an aggregate are still open. */
export async function openPartCount(db: Kysely<Database>, aggregateId: string): Promise<number> {
  const row = await db
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('aggregate_id', '=', aggregateId)
    .where('complete', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}