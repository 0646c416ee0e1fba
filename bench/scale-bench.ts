// Section `postgres`: the asynchronous figure with the service on PostgreSQL (a fresh database,
// dropped afterwards), first as one process (role all), then with a second process of role
// worker on the same database and data folder. SQLite is meant for one process
// (docs/configuration.md), so the second worker is measured on PostgreSQL only. SQLite's figure
// is measured right before and right after, as raw Typst is around the `pdf` section's runs, and
// the one-process figure right before and right after the two processes': this machine changes
// speed by 15–30 % within minutes, and a ratio of runs minutes apart carried that much.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mib } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import { startBenchServer, type BenchServer } from './server-process.js';
import { asyncRun, bracket, mean, renderEnv, sheetProject, warmUp, type AsyncRun, type BenchContext, type Bracket } from './sheet-bench.js';

export type ScaleResults =
  | { skipped: string }
  | {
      database: string;
      /** SQLite's async docs/s before and after the PostgreSQL runs; the ratio uses the mean. */
      sqlite: { docsPerSec: number; around: Bracket };
      onePostgres: AsyncRun & { ofSqlite: number };
      /** `ofOne` is against the mean of `oneAround`: the first process alone, warm, right before and after the two. */
      twoPostgres: AsyncRun & { ofOne: number; oneAround: Bracket; memory: ReturnType<typeof mib> };
    };

const pgHost = process.env.PGHOST || '127.0.0.1';
const pgPort = process.env.PGPORT || '5432';
const pgUser = process.env.PGUSER || 'postgres';
const pgArgs = ['-h', pgHost, '-p', pgPort, '-U', pgUser];

/** A fresh database on the local PostgreSQL, or the reason there is none. */
function createDatabase(): { url: string; drop: () => void } | { skipped: string } {
  const name = `pressroom_bench_${randomBytes(4).toString('hex')}`;
  try {
    execFileSync('createdb', [...pgArgs, name], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 15_000 });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return { skipped: `no PostgreSQL reachable as ${pgUser}@${pgHost}:${pgPort} (${(e.stderr?.toString() || e.message).trim().split('\n')[0]})` };
  }
  return {
    url: `postgres://${encodeURIComponent(pgUser)}@${pgHost}:${pgPort}/${name}`,
    drop: () => execFileSync('dropdb', [...pgArgs, '--if-exists', '--force', name], { stdio: 'ignore', timeout: 30_000 }),
  };
}

/** Asynchronous throughput on SQLite: the same run as the `pdf` section's async figure, on a fresh server. */
async function sqliteDocsPerSec(b: BenchContext): Promise<number> {
  const server = await startBenchServer(renderEnv(b.cores));
  try {
    const client = await sheetProject(server.url);
    await warmUp(client, b.cores);
    return (await asyncRun(client, [server.child.pid!], 600, 0)).docsPerSec;
  } finally {
    await server.stop();
  }
}

export async function postgresBench(b: BenchContext): Promise<void> {
  const db = createDatabase();
  if ('skipped' in db) {
    b.results.postgres = { skipped: db.skipped } satisfies ScaleResults;
    return;
  }
  try {
    const before = await sqliteDocsPerSec(b);
    const { one, two, oneAround, memory } = await postgresRuns({ ...renderEnv(b.cores), PRESSROOM_DATABASE_URL: db.url }, b.cores);
    const around = bracket(before, await sqliteDocsPerSec(b));
    const sqlite = { docsPerSec: +mean(around).toFixed(1), around };
    b.results.postgres = {
      database: 'PostgreSQL (fresh database, dropped afterwards)',
      sqlite,
      onePostgres: { ...one, ofSqlite: +(one.docsPerSec / sqlite.docsPerSec).toFixed(3) },
      twoPostgres: { ...two, ofOne: +(two.docsPerSec / mean(oneAround)).toFixed(3), oneAround, memory },
    } satisfies ScaleResults;
  } finally {
    db.drop();
  }
}

/**
 * One process (role all) on a fresh database: the figure set against SQLite's fresh servers. Then
 * the worker 2 figure between two warm processes: a second process of role worker beside the
 * first, both warmed up on a run of their own, then one process, two, one. V8 takes a process's
 * CPU per ticket down by a fifth to a third over its first thousand tickets (bench README,
 * `warm`), so a fresh server's run set against the two processes' run after it measured the
 * first process's warm-up as much as the second worker. While one process runs alone the second
 * is stopped (SIGSTOP): idle between runs, it holds no ticket, and it keeps its optimised code.
 */
async function postgresRuns(env: Record<string, string>, cores: number): Promise<{ one: AsyncRun; two: AsyncRun; oneAround: Bracket; memory: ReturnType<typeof mib> }> {
  const server = await startBenchServer(env);
  let worker: BenchServer | undefined;
  try {
    const client = await sheetProject(server.url);
    await warmUp(client, cores);
    const one = await asyncRun(client, [server.child.pid!], 600, 0);
    // The second process shares the database and the data folder (blobs are files there).
    worker = await startBenchServer(env, { role: 'worker', data: server.data });
    const pids = [server.child.pid!, worker.child.pid!];
    await asyncRun(client, pids, 2400, 600);
    const alone = async (first: number) => {
      worker!.child.kill('SIGSTOP');
      try {
        return (await asyncRun(client, [server.child.pid!], 600, first)).docsPerSec;
      } finally {
        worker!.child.kill('SIGCONT');
      }
    };
    const before = await alone(3000);
    const peak = new PeakMemory(() => pids).start();
    const two = await asyncRun(client, pids, 600, 3600);
    const memory = mib(peak.stop());
    return { one, two, oneAround: bracket(before, await alone(4200)), memory };
  } finally {
    await worker?.stop();
    await server.stop();
  }
}
