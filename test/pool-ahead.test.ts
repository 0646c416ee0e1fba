import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { PoolError, ProcessPool, type ProcessPoolOptions } from '../src/engines/pool/index.js';
import type { AheadJob, AheadResult } from './fixtures/pool/ahead.js';
import { until as waitUntil } from './helpers/chaos.js';

// Jobs sent ahead (ProcessPoolOptions.ahead): a busy process gets its next job before its
// running one ends and starts it on its own; a job waiting there moves to a process that falls
// idle; crashes, cancels and time limits treat a job sent ahead as not started.
const engine = fileURLToPath(new URL('./fixtures/pool/ahead.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pressroom-ahead-'));
const pools: ProcessPool<AheadJob, AheadResult>[] = [];
after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const file = (name: string) => join(dir, `${name}-${files++}`);

function pool(opts: Partial<ProcessPoolOptions> = {}, args: string[] = []): ProcessPool<AheadJob, AheadResult> {
  const p = new ProcessPool<AheadJob, AheadResult>({ name: 'ahead', size: 1, warm: true, ahead: true, timeoutMs: 30_000, logger: pino({ level: 'silent' }), command: () => ({ args: ['--import', 'tsx', engine, ...args] }), ...opts });
  pools.push(p);
  return p;
}

/** Waits for the pool to reach a state; the bound only guards against a hang. */
const until = (what: string, cond: () => boolean) => waitUntil(what, async () => cond(), 20_000);

const kindOf = (kind: string) => (err: unknown) => err instanceof PoolError && err.kind === kind;

describe('process pool, jobs sent ahead', () => {
  it('starts the job sent ahead when the running one ends, without the server thread handing it over', async () => {
    const p = pool();
    const gate = file('gate');
    const touched = file('touched');
    const first = p.run({ name: 'first', op: 'wait', gate });
    const second = p.run({ name: 'second', op: 'touch', file: touched });
    await until('one job running and one sent ahead', () => p.stats().busy === 1 && p.stats().queued === 1);
    // This thread now blocks: it cannot read the first answer nor hand over a job. The second
    // job's file appears only if the process went on to it by itself.
    writeFileSync(gate, '');
    const deadline = Date.now() + 20_000;
    while (!existsSync(touched) && Date.now() < deadline);
    assert.ok(existsSync(touched), 'the process started the job sent ahead on its own');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.pid, b.pid);
    assert.deepEqual(b.ran, ['first', 'second']);
  });

  it('moves a job waiting behind a long one to a process that falls idle; the busy process skips it', async () => {
    const p = pool({ size: 2 });
    await until('two warm processes', () => p.stats().idle === 2);
    const [longGate, shortGate] = [file('long'), file('short')];
    const long = p.run({ name: 'long', op: 'wait', gate: longGate });
    const short = p.run({ name: 'short', op: 'wait', gate: shortGate });
    const waiting = p.run({ name: 'waiting', op: 'echo' });
    await until('both busy and one job sent ahead', () => p.stats().busy === 2 && p.stats().queued === 1);
    writeFileSync(shortGate, '');
    const [s, w] = await Promise.all([short, waiting]);
    assert.equal(w.pid, s.pid, 'the job ran on the process that fell idle');
    assert.deepEqual(w.ran, ['short', 'waiting']);
    writeFileSync(longGate, '');
    const l = await long;
    assert.notEqual(l.pid, s.pid);
    // Once the long job's process has skipped the job taken back, both are idle, and two jobs
    // at once go one to each.
    await until('both processes idle', () => p.stats().idle === 2);
    const both = await Promise.all([p.run({ name: 'after-a', op: 'echo' }), p.run({ name: 'after-b', op: 'echo' })]);
    const there = both.find((r) => r.pid === l.pid)!;
    assert.deepEqual(there.skipped, ['waiting'], 'the busy process skipped the job taken back');
    assert.deepEqual(there.ran.slice(0, 1), ['long']);
    assert.ok(!there.ran.includes('waiting'));
  });

  it('runs the job sent ahead on a new process when the busy one crashes', async () => {
    const p = pool();
    const gate = file('crash');
    const crashing = p.run({ name: 'crashing', op: 'crash', gate });
    const next = p.run({ name: 'next', op: 'echo' });
    await until('one job running and one sent ahead', () => p.stats().busy === 1 && p.stats().queued === 1);
    writeFileSync(gate, '');
    await assert.rejects(crashing, kindOf('crash'));
    const r = await next;
    assert.deepEqual(r.ran, ['next'], 'on the replacement, as its first job');
    assert.equal(p.stats().started, 2);
  });

  it('starts the time limit of a job sent ahead when it starts, not while it waits', async () => {
    const p = pool();
    const gate = file('slow');
    const started = performance.now();
    const slow = p.run({ name: 'slow', op: 'wait', gate });
    const next = p.run({ name: 'next', op: 'echo' }, { timeoutMs: 1000 });
    await until('one job running and one sent ahead', () => p.stats().queued === 1);
    // The job in front runs well past the waiting job's limit.
    await until('the first job has run 2 s', () => performance.now() - started > 2000);
    writeFileSync(gate, '');
    assert.equal((await slow).name, 'slow');
    assert.equal((await next).name, 'next');
    assert.equal(p.stats().replaced.timeout, 0);
  });

  it('cancels a job sent ahead at once; its process skips it', async () => {
    const p = pool();
    const gate = file('cancel');
    const running = p.run({ name: 'running', op: 'wait', gate });
    const abort = new AbortController();
    const cancelled = p.run({ name: 'cancelled', op: 'echo' }, { signal: abort.signal });
    await until('one job sent ahead', () => p.stats().queued === 1);
    abort.abort();
    await assert.rejects(cancelled, kindOf('cancelled'));
    assert.equal(p.stats().queued, 0);
    writeFileSync(gate, '');
    await running;
    const r = await p.run({ name: 'later', op: 'echo' });
    assert.deepEqual([r.ran, r.skipped], [['running', 'later'], ['cancelled']]);
  });

  it('takes a skip that arrives before the answer of the job in front of it', async () => {
    const reads = file('reads');
    const p = pool({ timeoutMs: 5_000 }, [`hold-reads=${reads}`]);
    await until('a warm process', () => p.stats().idle === 1);
    const gate = file('together');
    // The process reads the job, the job sent ahead and the cancel together, and skips the
    // second while the first runs, before the first has answered.
    const running = p.run({ name: 'running', op: 'wait', gate });
    const abort = new AbortController();
    const cancelled = p.run({ name: 'cancelled', op: 'echo' }, { signal: abort.signal });
    abort.abort();
    await assert.rejects(cancelled, kindOf('cancelled'));
    writeFileSync(reads, '');
    writeFileSync(gate, '');
    await running;
    // The next job runs on the same process, without waiting for the skipped one's time limit.
    const r = await p.run({ name: 'later', op: 'echo' }, { timeoutMs: 10_000 });
    assert.deepEqual([r.ran, r.skipped], [['running', 'later'], ['cancelled']]);
    assert.equal(p.stats().replaced.timeout, 0);
  });

  it('closes with a job sent ahead: it fails with the running one', async () => {
    const p = pool();
    const running = p.run({ name: 'running', op: 'wait', gate: file('never') });
    const ahead = p.run({ name: 'ahead', op: 'echo' });
    await until('one job sent ahead', () => p.stats().queued === 1);
    const failed = [assert.rejects(running, kindOf('closed')), assert.rejects(ahead, kindOf('closed'))];
    await p.close();
    await Promise.all(failed);
  });
});
