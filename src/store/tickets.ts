import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { ArtifactsTable, Database, TicketsTable } from './schema.js';
import { Prepared, rowSlots } from './prepared.js';
import type { Dialect } from './db.js';
import { insertTicketPostgres } from './pg-intake.js';
import { recordStart } from './step-events.js';

export type TicketRow = Selectable<TicketsTable>;
export type ArtifactRow = Selectable<ArtifactsTable>;
export type TicketPatch = Updateable<TicketsTable>;

export { claimDue, renewLease, completeStep, committedRow, releaseLease, type AttemptEnd, type StepCommit } from './ticket-attempts.js';

// The reads and the shipped mark of every synchronous answer, download and status request,
// compiled once (prepared.ts): through the query builder each cost 30-50 us more.
const ticketById = new Prepared<{ id: string }, TicketRow>((db, v) => db.selectFrom('tickets').selectAll().where('id', '=', v.id));
const projectTicketById = new Prepared<{ id: string; tenant: string; project: string }, TicketRow>((db, v) =>
  db.selectFrom('tickets').selectAll().where('id', '=', v.id).where('tenant', '=', v.tenant).where('project', '=', v.project),
);
const shippedMark = new Prepared<{ id: string; now: number }, unknown>((db, v) => db.updateTable('tickets').set({ shipped: 1, updated: v.now }).where('id', '=', v.id));
const artifactByName = new Prepared<{ name: string }, ArtifactRow>((db, v) => db.selectFrom('artifacts').selectAll().where('name', '=', v.name));

/** A ticket by id. */
export async function findTicket(db: Kysely<Database>, id: string): Promise<TicketRow | undefined> {
  return (await ticketById.execute(db, db, { id })).rows[0];
}

/** A ticket by id, only if it belongs to that tenant and project. */
export async function findProjectTicket(db: Kysely<Database>, tenant: string, project: string, id: string): Promise<TicketRow | undefined> {
  return (await projectTicketById.execute(db, db, { id, tenant, project })).rows[0];
}

/** Ids of the open tickets of a project, oldest first. */
export async function openTicketIds(db: Kysely<Database>, tenant: string, project: string): Promise<string[]> {
  const rows = await db.selectFrom('tickets').select('id').where('tenant', '=', tenant).where('project', '=', project).where('complete', '=', sql.lit(0)).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** Marks a ticket's output shipped. */
export async function markShipped(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await shippedMark.execute(db, db, { id, now });
}

/** The stored files of a ticket. */
export async function listArtifacts(db: Kysely<Database>, ticket: string): Promise<ArtifactRow[]> {
  return db.selectFrom('artifacts').selectAll().where('ticket', '=', ticket).orderBy('name').execute();
}

/** One stored file by its served name (`<ticket><extension>`). */
export async function findArtifactByName(db: Kysely<Database>, name: string): Promise<ArtifactRow | undefined> {
  return (await artifactByName.execute(db, db, { name })).rows[0];
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

/**
 * Fair priority counts a project's recent tickets only up to here: every request pays for the
 * entries it counts, and a project past this many a minute is a bulk sender however far past.
 */
export const PRIORITY_COUNT_MAX = 1000;

const createdSince = new Prepared<{ tenant: string; project: string; since: number }, { n: number }>((db, v) =>
  db
    .selectFrom((eb) =>
      eb
        .selectFrom('tickets')
        .select('created')
        .where('tenant', '=', v.tenant)
        .where('project', '=', v.project)
        .where('created', '>=', v.since)
        .limit(PRIORITY_COUNT_MAX)
        .as('recent'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n')),
);

/** Tickets a project accepted since `since`, up to {@link PRIORITY_COUNT_MAX} (fair priority: the recent request rate). */
export async function countCreatedSince(db: Kysely<Database>, tenant: string, project: string, since: number): Promise<number> {
  const { rows } = await createdSince.execute(db, db, { tenant, project, since });
  return Number(rows[0]!.n);
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
 * the timeline, as a claim would record it. One ticket on PostgreSQL is one statement
 * ({@link insertTicketPostgres}).
 */
export async function insertTicketsCounted(db: Kysely<Database>, dialect: Dialect, rows: TicketRow[], period: string, startedAt?: number): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length === 1 && dialect.kind === 'postgres') return insertTicketPostgres(db, rows[0]!, period, startedAt);
  await db.transaction().execute((trx) => writeTicketsCounted(db, trx, rows, period, startedAt));
}

/** The statements of {@link insertTicketsCounted}, in the caller's transaction `trx`. */
export async function writeTicketsCounted(db: Kysely<Database>, trx: Kysely<Database>, rows: TicketRow[], period: string, startedAt?: number): Promise<void> {
  const { tenant, project } = rows[0]!;
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200);
    // As Kysely's own insert does, a column whose value is undefined is left to its default.
    const columns = (Object.keys(chunk[0]!) as (keyof TicketRow & string)[]).filter((c) => chunk[0]![c] !== undefined);
    await ticketInsert.execute(db, trx, { rows: chunk }, `${chunk.length}:${columns.join(',')}`);
  }
  if (startedAt !== undefined) for (const t of rows) if (t.lease_owner !== null) await recordStart(trx, t.id, t.attempt, t.next!, startedAt, db);
  await quotaCount.execute(db, trx, { tenant, project, period, tickets: rows.length });
}

/** Ticket rows; the shape is `<rows>:<columns>` (every row has the first row's columns). */
const ticketInsert = new Prepared<{ rows: readonly TicketRow[] }, unknown>((db, v, shape) => {
  const [count, columns] = shape.split(':') as [string, string];
  return db.insertInto('tickets').values(rowSlots<TicketRow, typeof v>(v, 'rows', Number(count), columns.split(',')));
});

/** Tickets counted against the quota period. */
const quotaCount = new Prepared<{ tenant: string; project: string; period: string; tickets: number }, unknown>((db, v) =>
  db
    .insertInto('quota_usage')
    .values({ tenant: v.tenant, project: v.project, period: v.period, tickets: v.tickets })
    .onConflict((oc) => oc.columns(['tenant', 'project', 'period']).doUpdateSet({ tickets: sql<number>`quota_usage.tickets + excluded.tickets` })),
);

/** The parts waiting for an aggregate ticket, in input order. */
export async function aggregateParts(db: Kysely<Database>, aggregateId: string): Promise<TicketRow[]> {
  return db.selectFrom('tickets').selectAll().where('aggregate_id', '=', aggregateId).orderBy('part_index').execute();
}

/** Tickets whose outputs one query reads: a 10 000-part aggregate reads in 20 queries of a few MB each. */
const OUTPUTS_PER_QUERY = 500;

/**
 * The stored output of each complete ticket in `contentType`, by ticket id: its main artifact,
 * or another output beside it of that type (after convert, the PDF stays next to the images).
 * Tickets without one are missing from the map. An aggregate reads its parts' PDFs so, a few
 * hundred per query: the 10 000 PDFs (128 MB) of a bench fanout in 261–367 ms against 415–507
 * ms one query each, most of either copying the bytes out of the database.
 */
export async function outputsOfType(db: Kysely<Database>, parts: readonly Pick<TicketRow, 'id' | 'complete' | 'output_name'>[], contentType: string): Promise<Map<string, ArtifactRow>> {
  const found = new Map<string, ArtifactRow>();
  const complete = parts.filter((p) => p.complete === 1 && p.output_name);
  for (let at = 0; at < complete.length; at += OUTPUTS_PER_QUERY) {
    const batch = complete.slice(at, at + OUTPUTS_PER_QUERY);
    const main = new Map(batch.map((p) => [p.id, p.output_name]));
    const rows = await db.selectFrom('artifacts').selectAll().where('ticket', 'in', [...main.keys()]).where('kind', '=', 'output').where('content_type', '=', contentType).execute();
    for (const row of rows) if (!found.has(row.ticket) || row.name === main.get(row.ticket)) found.set(row.ticket, row);
  }
  return found;
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

/**
 * Whether a part of the aggregate is still open. Asked after every part's end, so it stops at
 * the first open part: counting them all made a fanout quadratic (10 000 parts: the counts took
 * 2.4 s of the service's main thread, this check 0.7 s). Compiled once: built and compiled by
 * Kysely on every call, the check took 108 ms of a 1000-part fanout's main thread, compiled
 * 4 ms (CPU profiles, 2 cores; SQLite's run of it, after an await, counts in neither).
 */
export async function hasOpenParts(db: Kysely<Database>, aggregateId: string): Promise<boolean> {
  return (await openPart.execute(db, db, { aggregateId })).rows.length > 0;
}

const openPart = new Prepared<{ aggregateId: string }, { id: string }>((db, v) =>
  db.selectFrom('tickets').select('id').where('aggregate_id', '=', v.aggregateId).where('complete', '=', 0).limit(1),
);
