import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { PoolError, ProcessPool, residentBytes, type ProcessPoolOptions } from '../src/engines/pool/index.js';

const engine = fileURLToPath(new URL('./fixtures/pool/engine.mjs', import.meta.url));
const MiB = 1024 * 1024;
const linux = existsSync('/proc/self/status') ? false : 'needs /proc (Linux) to read process memory';

type Job =
  | { op: 'echo'; value: string }
  | { op: 'say'; rssMb: number; keepsMb: number }
  | { op: 'sleep'; ms: number }
  | { op: 'spin' | 'crash' | 'throw' }
  | { op: 'hold' | 'alloc'; mb: number }
  | { op: 'grow'; stepMb: number; everyMs: number }
  | { op: 'fill'; rssMb: number; thenMs: number }
  | { op: 'ticks'; count: number; everyMs: number };
type Result = { pid: number; value?: string; ticks?: number; rssMb?: number };

const pools: ProcessPool<Job, Result, unknown>[] = [];
after(() => Promise.all(pools.map((p) => p.close())));

function pool(opts: Partial<ProcessPoolOptions> = {}, args: string[] = []): ProcessPool<Job, Result, unknown> {
  const p = new ProcessPool<Job, Result, unknown>({ name: 'test', size: 1, timeoutMs: 30_000, logger: pino({ level: 'silent' }), command: () => ({ args: [engine, ...args] }), ...opts });
  pools.push(p);
  return p;
}

/** Waits for a condition by polling; the bound only guards against a hang. */
async function until(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs jobs until one runs on a process other than `pid` (a recycled process serves until its replacement is ready). */
async function jobsUntilAnotherProcess(p: ProcessPool<Job, Result, unknown>, pid: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await p.run({ op: 'echo', value: '' })).pid === pid) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a job on the replacement process');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const kindOf = (kind: string) => (err: unknown) => err instanceof PoolError && err.kind === kind;

describe('process pool', () => {
  it('queues jobs while every process is busy and runs them in order on the same process', async () => {
    const p = pool();
    const finished: number[] = [];
    const runs = [0, 1, 2].map((i) => p.run({ op: 'sleep', ms: 150 }).then((r) => (finished.push(i), r)));
    await until('one busy, two queued', () => p.stats().busy === 1 && p.stats().queued === 2);
    const results = await Promise.all(runs);
    assert.deepEqual(finished, [0, 1, 2]);
    assert.equal(new Set(results.map((r) => r.pid)).size, 1);
    assert.deepEqual({ ...p.stats(), replaced: undefined }, { size: 1, starting: 0, idle: 1, busy: 0, queued: 0, started: 1, replaced: undefined });
  });

  it('builds a job only when a process is free', async () => {
    const p = pool();
    let built = 0;
    const first = p.run({ op: 'sleep', ms: 100 });
    const second = p.run(() => ({ op: 'echo', value: `built after ${built++}` }));
    assert.equal(built, 0);
    await first;
    assert.equal((await second).value, 'built after 0');
  });

  it('kills a job at its time limit and serves the next job from a new process', async () => {
    const p = pool({ timeoutMs: 400 });
    const before = await p.run({ op: 'echo', value: 'warm' });
    await assert.rejects(p.run({ op: 'spin' }), (err) => kindOf('timeout')(err) && /stopped after 400 ms \(time limit\)/.test((err as Error).message));
    const next = await p.run({ op: 'echo', value: 'after' });
    assert.notEqual(next.pid, before.pid);
    assert.equal(p.stats().replaced.timeout, 1);
    // A job's own limit wins over the pool's.
    await assert.rejects(p.run({ op: 'sleep', ms: 5_000 }, { timeoutMs: 200 }), kindOf('timeout'));
  });

  it('restarts the time limit with every progress message', async () => {
    const p = pool({ timeoutMs: 300 });
    const seen: unknown[] = [];
    const result = await p.run({ op: 'ticks', count: 6, everyMs: 100 }, { onProgress: (n) => seen.push(n) });
    assert.equal(result.ticks, 6);
    assert.equal(seen.length, 6);
  });

  it('fails the job of a process that crashed and replaces the process (warm pools at once)', async () => {
    const p = pool({ size: 2, warm: true });
    await until('two warm processes', () => p.stats().idle === 2);
    await assert.rejects(p.run({ op: 'crash' }), (err) => kindOf('crash')(err) && (err as PoolError).detail.how === 'exit code 3');
    await until('the crashed process replaced', () => p.stats().idle === 2);
    assert.equal(p.stats().started, 3);
    assert.equal(p.stats().replaced.crash, 1);
    assert.equal((await p.run({ op: 'echo', value: 'still here' })).value, 'still here');
  });

  it('fails a job whose handler threw, and keeps the process', async () => {
    const p = pool();
    const { pid } = await p.run({ op: 'echo', value: '' });
    await assert.rejects(p.run({ op: 'throw' }), /the handler failed/);
    assert.equal((await p.run({ op: 'echo', value: '' })).pid, pid);
  });

  it('kills a job that grows past the memory ceiling and serves the next job', { skip: linux }, async () => {
    const ceiling = 200 * MiB;
    const p = pool({ memoryCeilingBytes: ceiling });
    let pid = 0;
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, (pid && residentBytes(pid)) || 0)), 5);
    try {
      await assert.rejects(
        p.run({ op: 'grow', stepMb: 4, everyMs: 10 }, { onProgress: (m) => (pid = (m as { pid: number }).pid) }),
        (err) => kindOf('memory')(err) && /memory ceiling of 200 MiB/.test((err as Error).message),
      );
    } finally {
      clearInterval(watch);
    }
    assert.ok(peak > 0 && peak < 1.5 * ceiling, `peak ${Math.round(peak / MiB)} MiB`);
    assert.equal(p.stats().replaced.memory, 1);
    assert.notEqual((await p.run({ op: 'echo', value: '' })).pid, pid);
  });

  it('stops one huge allocation at the operating-system limit, before it is resident', { skip: linux }, async () => {
    const p = pool({ memoryCeilingBytes: 200 * MiB });
    await assert.rejects(p.run({ op: 'alloc', mb: 3000 }), (err) => kindOf('memory')(err) && /200 MiB/.test((err as Error).message));
    assert.equal((await p.run({ op: 'echo', value: 'next' })).value, 'next');
  });

  it('lets a job share memory its neighbours leave unused, and stops it when they need their share back', { skip: linux }, async () => {
    const share = 200 * MiB;
    // Without sharing, a job past its share is stopped.
    const fixed = pool({ memoryCeilingBytes: share });
    await assert.rejects(fixed.run({ op: 'fill', rssMb: 300, thenMs: 0 }), (err) => kindOf('memory')(err) && /200 MiB/.test((err as Error).message));

    const shared = pool({ size: 2, warm: true, memoryCeilingBytes: share, shareMemory: true });
    await until('both processes to start', () => shared.stats().idle === 2);
    const big = await shared.run({ op: 'fill', rssMb: 300, thenMs: 0 });
    assert.ok(big.rssMb! >= 300, `the borrowing job reached ${big.rssMb} MiB`);

    // A job holding 300 MiB while the other process grows within its own 200 MiB share: the
    // borrower is stopped (its ceiling, what the other left it, is below the pool's 400 MiB), the other job finishes.
    // The pool hands a job to its first idle process, so this one runs where `big` ran and
    // already holds its 300 MiB; the other process holds only its start-up memory.
    let borrower = 0;
    const holding = shared.run({ op: 'fill', rssMb: 300, thenMs: 60_000 }, { onProgress: (m) => (borrower = (m as { pid: number }).pid) });
    const ceilingOf = (err: unknown) => Number(/ceiling of (\d+) MiB/.exec((err as Error).message)?.[1]);
    const stopped = assert.rejects(holding, (err) => kindOf('memory')(err) && ceilingOf(err) >= 200 && ceilingOf(err) < 400);
    await until('the borrower to hold its memory', () => borrower > 0 && (residentBytes(borrower) ?? 0) >= 300 * MiB);
    assert.equal(borrower, big.pid);
    const own = await shared.run({ op: 'fill', rssMb: 180, thenMs: 0 });
    assert.notEqual(own.pid, borrower);
    await stopped;
    assert.ok(shared.stats().replaced.memory >= 1);
  });

  it('recycles a process that grew past the threshold or served its number of jobs: it serves on until its replacement is ready, then goes', { skip: linux }, async () => {
    const grown = pool({ recycleRssBytes: 150 * MiB });
    const first = await grown.run({ op: 'hold', mb: 200 });
    assert.equal(grown.stats().replaced.recycled, 1);
    await jobsUntilAnotherProcess(grown, first.pid);
    await until('the grown process to end', () => !alive(first.pid));
    assert.deepEqual({ ...grown.stats(), replaced: undefined }, { size: 1, starting: 0, idle: 1, busy: 0, queued: 0, started: 2, replaced: undefined });

    // A process that says how much it holds with each answer is judged by what it says.
    const says = pool({ recycleRssBytes: 150 * MiB }, ['report-rss=200']);
    const small = await says.run({ op: 'echo', value: '' });
    assert.ok((residentBytes(small.pid) ?? 0) < 150 * MiB, 'the process really holds less than the threshold');
    assert.equal(says.stats().replaced.recycled, 1);
    await jobsUntilAnotherProcess(says, small.pid);

    const counted = pool({ recycleAfterJobs: 2 });
    const pids: number[] = [];
    for (let i = 0; i < 2; i++) pids.push((await counted.run({ op: 'echo', value: '' })).pid);
    assert.equal(pids[0], pids[1]);
    await jobsUntilAnotherProcess(counted, pids[0]!);
    await until('the counted-out process to end', () => !alive(pids[0]!));
    assert.equal(counted.stats().replaced.recycled, 1);
  });

  it('recycles a process whose memory floor rose, not for one big job nor for what it keeps on purpose', async () => {
    const p = pool({ recycleOnFloorRise: { settleJobs: 4, windowJobs: 2, marginBytes: 40 * MiB } });
    const say = (rssMb: number, keepsMb = 0) => p.run({ op: 'say', rssMb, keepsMb });
    const { pid } = await say(100);
    for (let i = 0; i < 3; i++) await say(100);
    // One big job: the least it held over its last two jobs is still 100 MiB.
    await say(300);
    await say(100);
    // 200 MiB more of what it says it keeps (files, fonts) is not a raised floor.
    for (let i = 0; i < 3; i++) await say(300, 200);
    await say(160);
    assert.equal(p.stats().replaced.recycled, 0);
    // Two jobs in a row at 160 MiB: 60 MiB above the settled 100, past the 40 MiB margin.
    await say(160);
    assert.equal(p.stats().replaced.recycled, 1);
    await jobsUntilAnotherProcess(p, pid);
    await until('the process whose floor rose to end', () => !alive(pid));
  });

  it('sees a floor rise in the memory a process really holds', { skip: linux }, async () => {
    const p = pool({ recycleOnFloorRise: { settleJobs: 3, windowJobs: 2, marginBytes: 32 * MiB } });
    const first = await p.run({ op: 'echo', value: '' });
    for (let i = 0; i < 2; i++) await p.run({ op: 'echo', value: '' });
    await p.run({ op: 'hold', mb: 64 });
    assert.equal(p.stats().replaced.recycled, 0, 'one job that holds more is not yet a raised floor');
    await p.run({ op: 'echo', value: '' });
    assert.equal(p.stats().replaced.recycled, 1);
    await jobsUntilAnotherProcess(p, first.pid);
  });

  it('runs its processes at a lower priority than the server (niceness +10)', { skip: linux }, async () => {
    const p = pool({ memoryCeilingBytes: 200 * MiB });
    const { pid } = await p.run({ op: 'echo', value: '' });
    const nice = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    const own = nice(readFileSync('/proc/self/stat', 'utf8'));
    assert.equal(nice(readFileSync(`/proc/${pid}/stat`, 'utf8')), Math.min(19, own + 10));
  });

  it('fails waiting jobs when a process cannot start, instead of restarting it in a loop', async () => {
    const p = pool({}, ['never-ready']);
    await assert.rejects(p.run({ op: 'echo', value: '' }), (err) => kindOf('crash')(err) && /could not start \(exit code 9\)/.test((err as Error).message));
    assert.equal(p.stats().started, 1);
  });

  it('gives a start that is runnable more time, and stops one that waits without starting', { skip: linux }, async () => {
    // Limits with room for node's own start on a loaded machine: four limits (4 s) against 1.5 s.
    const slow = pool({ startupTimeoutMs: 1000 }, ['slow-start=1500']);
    assert.equal((await slow.run({ op: 'echo', value: 'late but ready' })).value, 'late but ready');
    assert.equal(slow.stats().started, 1);
    const stuck = pool({ startupTimeoutMs: 1000 }, ['hang-start']);
    await assert.rejects(stuck.run({ op: 'echo', value: '' }), (err) => kindOf('crash')(err) && /could not start \(SIGKILL\)/.test((err as Error).message));
  });

  it('closes cleanly: running and queued jobs fail, later ones are refused', async () => {
    const p = pool();
    const running = p.run({ op: 'sleep', ms: 10_000 });
    const queued = p.run({ op: 'echo', value: '' });
    await until('the first job running', () => p.stats().busy === 1);
    const failed = [assert.rejects(running, kindOf('closed')), assert.rejects(queued, kindOf('closed'))];
    await p.close();
    await Promise.all(failed);
    await assert.rejects(p.run({ op: 'echo', value: '' }), kindOf('closed'));
    assert.deepEqual([p.stats().busy, p.stats().idle, p.stats().queued], [0, 0, 0]);
  });
});

describe('process pool, child side (serveJobs)', () => {
  it('runs afterEach once the answer is sent, and before the next job', async (t) => {
    const served = fileURLToPath(new URL('./fixtures/pool/served.ts', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'pressroom-served-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const p = new ProcessPool<{ gate: string }, { pid: number; afterEachRuns: number; gateMissed: boolean }, unknown>({
      name: 'served',
      size: 1,
      timeoutMs: 30_000,
      logger: pino({ level: 'silent' }),
      command: () => ({ args: ['--import', 'tsx', served] }),
    });
    pools.push(p as unknown as ProcessPool<Job, Result, unknown>);
    for (let i = 0; i < 3; i++) {
      const gate = join(dir, `gate-${i}`);
      // afterEach of this job waits for the gate, which opens only once the answer is here:
      // an answer that waited for afterEach would never arrive.
      const answer = await p.run({ gate });
      assert.equal(answer.afterEachRuns, i, 'afterEach ran once after each earlier job, before this one');
      assert.equal(answer.gateMissed, false);
      writeFileSync(gate, '');
    }
  });
});
