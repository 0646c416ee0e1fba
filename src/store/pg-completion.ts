import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { Prepared, sqlList as list } from './prepared.js';
import type { ArtifactsTable, Database } from './schema.js';
import { statsColumns, statsCounters, type StatsRow } from './stats.js';
import type { AttemptEnd } from './ticket-attempts.js';
import type { ArtifactRow } from './tickets.js';

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
}

const shapeKey = (s: CommitShape): string => `${s.columns.join(',')}|${s.artifacts}|${s.usage}|${s.end}`;

function parseShape(key: string): CommitShape {
  const [columns, artifacts, usage, end] = key.split('|') as [string, string, string, CommitShape['end']];
  return { columns: columns.split(',').filter(Boolean), artifacts: Number(artifacts), usage: Number(usage), end };
}

/** One row inserted from the slots `<prefix><column>` if the outcome was written. */
function rowFromDone(v: Record<string, unknown>, table: string, columns: readonly string[], prefix: string, onConflict: RawBuilder<unknown>): RawBuilder<unknown> {
  const names = list(columns.map((c) => sql.ref(c)));
  const values = list(columns.map((c) => sql`${v[`${prefix}${c}`]}`));
  return sql`insert into ${sql.table(table)} (${names}) select ${values} from done ${onConflict}`;
}

const commit = new Prepared<Record<string, unknown>, { n: number }>((db, v, key) => {
  const shape = parseShape(key);
  const sets = [...shape.columns.map((c) => sql`${sql.ref(c)} = ${v[`set_${c}`]}`), sql`lease_owner = null`, sql`lease_until = null`];
  const ctes: RawBuilder<unknown>[] = [sql`done as (update tickets set ${list(sets)} where id = ${v.id} and attempt = ${v.attempt} and lease_owner = ${v.owner} returning id)`];
  const replaced = list(artifactColumns.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
  for (let i = 0; i < shape.artifacts; i++) {
    ctes.push(sql`${sql.ref(`artifact_${i}`)} as (${rowFromDone(v, 'artifacts', artifactColumnList, `a${i}_`, sql`on conflict (ticket, name) do update set ${replaced}`)})`);
  }
  const added = list(statsCounters.map((c) => sql`${sql.ref(c)} = stats.${sql.ref(c)} + excluded.${sql.ref(c)}`));
  for (let i = 0; i < shape.usage; i++) {
    ctes.push(sql`${sql.ref(`usage_${i}`)} as (${rowFromDone(v, 'stats', statsColumns, `u${i}_`, sql`on conflict (tenant, project, unit, start) do update set ${added}`)})`);
  }
  const attemptOf = sql`ticket = ${v.id} and attempt = ${v.attempt} and exists (select from done)`;
  if (shape.end === 'ended') ctes.push(sql`ended as (update step_events set ended = ${v.end_at}, outcome = ${v.end_outcome}, error_code = ${v.end_error} where ${attemptOf})`);
  if (shape.end === 'forget') ctes.push(sql`forgotten as (delete from step_events where ${attemptOf})`);
  const statement = sql<{ n: number }>`with ${list(ctes)} select count(*)::int as n from done`;
  return { compile: (): CompiledQuery<{ n: number }> => statement.compile(db) };
});

/**
 * Commits a step's outcome with its artifacts (names unique), usage rows and the end of the
 * attempt in the timeline, as one statement; false when the attempt no longer holds the lease.
 */
export async function commitStepPostgres(
  db: Kysely<Database>,
  ref: { id: string; attempt: number; owner: string },
  patch: { columns: string[]; values: Record<string, unknown> },
  artifacts: readonly ArtifactRow[],
  usage: readonly StatsRow[],
  end: AttemptEnd | undefined,
): Promise<boolean> {
  const values: Record<string, unknown> = { ...patch.values, id: ref.id, attempt: ref.attempt, owner: ref.owner };
  artifacts.forEach((a, i) => {
    for (const c of artifactColumnList) values[`a${i}_${c}`] = a[c];
  });
  usage.forEach((u, i) => {
    for (const c of statsColumns) values[`u${i}_${c}`] = u[c];
  });
  if (end && end !== 'forget') Object.assign(values, { end_at: end.at, end_outcome: end.outcome, end_error: end.errorCode });
  const key = shapeKey({ columns: patch.columns, artifacts: artifacts.length, usage: usage.length, end: end === undefined ? 'none' : end === 'forget' ? 'forget' : 'ended' });
  const { rows } = await commit.execute(db, db, values, key);
  return rows[0]?.n === 1;
}
