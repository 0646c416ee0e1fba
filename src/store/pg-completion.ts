import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { dueTickets, leaseUpdate, type ClaimValues } from './claim-query.js';
import { fieldSlots, Prepared, rowSlots, sqlList as list, type Slots } from './prepared.js';
import type { ArtifactsTable, Database } from './schema.js';
import { statsColumns, statsCounters, type StatsRow } from './stats.js';
import type { AttemptEnd, StepCommit } from './ticket-attempts.js';
import type { ArtifactRow, TicketPatch, TicketRow } from './tickets.js';

// PostgreSQL: a step's commit as one statement instead of a transaction of up to six round trips
// (BEGIN, the outcome, the artifacts, the usage, the timeline, COMMIT). Each write after the
// outcome's update happens only if that update found the attempt (`exists (select from done)`),
// so a lost lease still writes nothing. Each row has an `insert … select … from done` of its
// own: PostgreSQL then types every parameter from its target column (a multi-row VALUES list
// inside a select would type them as text).

/** The artifact columns an upsert of an existing (ticket, name) replaces. */
export const artifactColumns = ['blob_key', 'size', 'content_type', 'kind', 'keep_until', 'keep_rule', 'created', 'data'] as const satisfies readonly (keyof ArtifactsTable)[];
export const artifactColumnList = ['ticket', 'name', ...artifactColumns] as const;

/** The parts of a commit that decide its SQL: patched columns, row counts, how the timeline ends. */
interface CommitShape {
  columns: string[];
  artifacts: number;
  usage: number;
  end: 'none' | 'ended' | 'forget';
  /** The next due ticket is claimed too. */
  claim: boolean;
}

const shapeKey = (s: CommitShape): string => `${s.columns.join(',')}|${s.artifacts}|${s.usage}|${s.end}|${s.claim ? 1 : 0}`;

function parseShape(key: string): CommitShape {
  const [columns, artifacts, usage, end, claim] = key.split('|') as [string, string, string, CommitShape['end'], string];
  return { columns: columns.split(',').filter(Boolean), artifacts: Number(artifacts), usage: Number(usage), end, claim: claim === '1' };
}

/** One row inserted from its slots (column → slot) if the outcome was written. */
function rowFromDone(row: Record<string, unknown>, table: string, columns: readonly string[], onConflict: RawBuilder<unknown>): RawBuilder<unknown> {
  const names = list(columns.map((c) => sql.ref(c)));
  const values = list(columns.map((c) => sql`${row[c]}`));
  return sql`insert into ${sql.table(table)} (${names}) select ${values} from done ${onConflict}`;
}

/** The values of a commit: the patch, artifact and usage rows are read where they are. */
interface CommitValues extends Record<string, unknown> {
  set: TicketPatch;
  artifacts: readonly ArtifactRow[];
  usage: readonly StatsRow[];
  id: string;
  attempt: number;
  owner: string;
  claim_now?: number;
  claim_until?: number;
  end_at?: number;
  end_outcome?: string;
  end_error?: string | null;
}

const commit = new Prepared<CommitValues, { n: number }>((db, v, key) => {
  const shape = parseShape(key);
  const set = fieldSlots<Record<string, unknown>, CommitValues>(v, 'set', shape.columns);
  const sets = [...shape.columns.map((c) => sql`${sql.ref(c)} = ${set[c]}`), sql`lease_owner = null`, sql`lease_until = null`];
  const ctes: RawBuilder<unknown>[] = [sql`done as (update tickets set ${list(sets)} where id = ${v.id} and attempt = ${v.attempt} and lease_owner = ${v.owner} returning id)`];
  const replaced = list(artifactColumns.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
  const artifacts = rowSlots<Record<string, unknown>, CommitValues>(v, 'artifacts', shape.artifacts, artifactColumnList);
  artifacts.forEach((row, i) => {
    ctes.push(sql`${sql.ref(`artifact_${i}`)} as (${rowFromDone(row, 'artifacts', artifactColumnList, sql`on conflict (ticket, name) do update set ${replaced}`)})`);
  });
  const added = list(statsCounters.map((c) => sql`${sql.ref(c)} = stats.${sql.ref(c)} + excluded.${sql.ref(c)}`));
  const usage = rowSlots<Record<string, unknown>, CommitValues>(v, 'usage', shape.usage, statsColumns);
  usage.forEach((row, i) => {
    ctes.push(sql`${sql.ref(`usage_${i}`)} as (${rowFromDone(row, 'stats', statsColumns, sql`on conflict (tenant, project, unit, start) do update set ${added}`)})`);
  });
  const attemptOf = sql`ticket = ${v.id} and attempt = ${v.attempt} and exists (select from done)`;
  if (shape.end === 'ended') ctes.push(sql`ended as (update step_events set ended = ${v.end_at}, outcome = ${v.end_outcome}, error_code = ${v.end_error} where ${attemptOf})`);
  if (shape.end === 'forget') ctes.push(sql`forgotten as (delete from step_events where ${attemptOf})`);
  if (!shape.claim) {
    const statement = sql<{ n: number }>`with ${list(ctes)} select count(*)::int as n from done`;
    return { compile: (): CompiledQuery<{ n: number }> => statement.compile(db) };
  }
  // Every part of one statement reads the rows as they were before it: the committed ticket still
  // looks leased, so the claim passes over it anyway; `except` says so, because PostgreSQL
  // would apply only one of two updates of the same row in one statement.
  const c = { owner: v.owner, until: v.claim_until, now: v.claim_now, limit: 1, except: v.id } as Slots<ClaimValues>;
  const claim = leaseUpdate(db, c).where('id', 'in', dueTickets(db, c, 1, true).forUpdate().skipLocked()).returningAll();
  ctes.push(sql`claimed as (${claim})`);
  ctes.push(sql`claim_started as (insert into step_events (ticket, attempt, step, started) select id, attempt, next, cast(${v.claim_now} as bigint) from claimed on conflict (ticket, attempt) do nothing)`);
  // One row whatever was claimed: the outcome's count, and the claimed ticket's columns or nulls.
  const statement = sql<{ n: number }>`with ${list(ctes)} select (select count(*)::int from done) as n, claimed.* from (select 1) as one left join claimed on true`;
  return { compile: (): CompiledQuery<{ n: number }> => statement.compile(db) };
});

/**
 * Commits a step's outcome with its artifacts (names unique), usage rows and the end of the
 * attempt in the timeline, as one statement, and with `claim` claims the next due ticket in it;
 * `committed: false` when the attempt no longer holds the lease.
 */
export async function commitStepPostgres(
  db: Kysely<Database>,
  ref: { id: string; attempt: number; owner: string },
  patch: { columns: string[]; set: TicketPatch },
  artifacts: readonly ArtifactRow[],
  usage: readonly StatsRow[],
  end: AttemptEnd | undefined,
  claim: { now: number; until: number } | undefined,
): Promise<StepCommit> {
  const values: CommitValues = { set: patch.set, artifacts, usage, id: ref.id, attempt: ref.attempt, owner: ref.owner };
  if (claim) Object.assign(values, { claim_now: claim.now, claim_until: claim.until });
  if (end && end !== 'forget') Object.assign(values, { end_at: end.at, end_outcome: end.outcome, end_error: end.errorCode });
  const key = shapeKey({ columns: patch.columns, artifacts: artifacts.length, usage: usage.length, end: end === undefined ? 'none' : end === 'forget' ? 'forget' : 'ended', claim: claim !== undefined });
  const { rows } = await commit.execute(db, db, values, key);
  const row = rows[0] as ({ n: number } & Partial<TicketRow>) | undefined;
  if (!row || !claim || row.id == null) return { committed: row?.n === 1, claimed: null };
  const { n, ...claimed } = row;
  return { committed: n === 1, claimed: claimed as TicketRow };
}
