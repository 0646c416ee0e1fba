// Section `pdf`: the one-page data sheet through raw Typst and through the service (SQLite,
// role all): throughput of asynchronous tickets, the service process's CPU per ticket,
// synchronous latency and the peak memory of the whole process tree.
import { sheetRaw, sheetTemplate, sheetXml, sheetZip } from './documents.js';
import { percentile } from './fixtures.js';
import { ProjectClient, submitAll } from './api.js';
import { cpuSince, machineCpu, machineLoad, mib, treeCpu } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import { rawLatency, rawThroughput } from './raw-typst.js';
import { startBenchServer } from './server-process.js';

export interface BenchContext {
  cores: number;
  results: Record<string, unknown>;
}

export const SHEET_QUERY = 'documentTemplate=sheet';
export const renderEnv = (cores: number) => ({ PRESSROOM_RENDER_THREADS: String(cores) });

/** A project `acme/<project>` with the benchmark page uploaded as master-documents/sheet.typ. */
export async function sheetProject(base: string, project = 'shop'): Promise<ProjectClient> {
  const client = await ProjectClient.create(base, 'acme', project);
  await client.putFile('master-documents/sheet.typ', sheetTemplate);
  return client;
}

export interface AsyncRun {
  tickets: number;
  seconds: number;
  docsPerSec: number;
  /** CPU seconds of each process named (its own, and its render processes'). */
  cpu: { self: number; children: number }[];
  /** The machine meanwhile, in cores: what else ran disturbs the figure. */
  machine: ReturnType<typeof machineLoad>;
}

/**
 * `n` tickets (records first … first + n − 1) submitted by 8 clients; the clock runs from the
 * first submission until no ticket is open. CPU is read from /proc over the same interval.
 */
export async function asyncRun(client: ProjectClient, pids: number[], n: number, first: number): Promise<AsyncRun> {
  const bodies = Array.from({ length: n }, (_, i) => sheetZip(first + i));
  const cpu0 = pids.map((p) => treeCpu(p));
  const machine0 = machineCpu();
  const started = performance.now();
  const answers = await submitAll(client, n, 8, (i) => bodies[i]!, SHEET_QUERY);
  const bad = answers.filter((a) => a.status !== 202);
  if (bad.length) throw new Error(`${bad.length} submissions were not accepted (first: ${bad[0]!.status})`);
  const ended = await client.waitIdle();
  const cpu = pids.map((p, k) => cpuSince(p, cpu0[k]!));
  const machine = machineLoad(machine0, cpu.reduce((sum, c) => sum + c.self + c.children, 0));
  await client.expectRendered(answers.flatMap((a) => a.tickets));
  const seconds = (ended - started) / 1000;
  return { tickets: n, seconds: +seconds.toFixed(2), docsPerSec: +(n / seconds).toFixed(1), cpu, machine };
}

/** Warms the render processes up: a few tickets, then wait until all are done. */
export async function warmUp(client: ProjectClient, cores: number): Promise<void> {
  await submitAll(client, 10 * cores, 2 * cores, (i) => sheetZip(100_000 + i), SHEET_QUERY);
  await client.waitIdle();
}

/**
 * A raw figure measured right before and right after the service's run it is compared with.
 * This machine changes speed by tens of percent within minutes. A single raw run a minute
 * earlier moved the async ratio between 0.45 and 0.80 for the same code. The mean of the two
 * runs around the service's run follows the drift; `drift` says how large it was.
 */
export interface Bracket {
  before: number;
  after: number;
  /** after ÷ before − 1: above 0 the machine got slower (for times) or faster (for docs/s). */
  drift: number;
}

export const bracket = (before: number, after: number): Bracket => ({ before, after, drift: +(after / before - 1).toFixed(3) });
export const mean = (b: Bracket) => (b.before + b.after) / 2;

export interface SheetResults {
  rawTypst: {
    processes: number;
    /** Mean of the throughput runs before and after the async run. */
    docsPerSec: number;
    throughputP50Ms: number;
    /** Mean of the latency runs before and after the sync run. */
    latencyP50Ms: number;
    latencyP95Ms: number;
    cpuMsPerDoc: number;
    machine: ReturnType<typeof machineLoad>;
    brackets: { docsPerSec: Bracket; latencyP50Ms: Bracket; latencyP95Ms: Bracket };
  };
  async: AsyncRun & { ofRaw: number; serverCpuMsPerTicket: number; renderCpuMsPerTicket: number };
  sync: { requests: number; p50Ms: number; p95Ms: number; p99Ms: number; overP50Ms: number; overP95Ms: number };
  memory: ReturnType<typeof mib>;
  /** Context, no target: the same server after {@link WARM_TICKETS} more tickets, then the async and sync runs again. */
  warm: { afterTickets: number; async: SheetResults['async']; sync: { p50Ms: number; p95Ms: number; overP50Ms: number; overP95Ms: number } };
}

/**
 * Tickets a server has run before the `warm` runs. The figures with targets come from a server
 * that has run 10 × cores tickets, where V8 is still optimising: in a 2000-submission burst its helper
 * threads spent ~0.76 s of CPU compiling ~260 functions with TurboFan (perf, 2 cores). After
 * 1200 tickets more, the same runs took 20–32 % less of the service's CPU (four alternated pairs).
 */
export const WARM_TICKETS = 1200;

/** `n` synchronous requests one at a time (records first … first + n − 1): milliseconds each, until the whole PDF is read. */
async function syncTimes(client: ProjectClient, first: number, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push((await client.renderSync(sheetZip(first + i), SHEET_QUERY)).ms);
  return times;
}

/** An async run's CPU per ticket and its ratio to raw Typst's throughput. */
const perTicket = (run: AsyncRun, rawDocsPerSec: number) => ({
  ...run,
  ofRaw: +(run.docsPerSec / rawDocsPerSec).toFixed(3),
  serverCpuMsPerTicket: +((1000 * run.cpu[0]!.self) / run.tickets).toFixed(2),
  renderCpuMsPerTicket: +((1000 * run.cpu[0]!.children) / run.tickets).toFixed(2),
});

export async function sheetBench(b: BenchContext): Promise<void> {
  const doc = await sheetRaw();
  const records = Array.from({ length: 256 }, (_, i) => sheetXml(i));
  const throughput = await rawThroughput(doc, records, b.cores);

  const server = await startBenchServer(renderEnv(b.cores));
  const pid = server.child.pid!;
  const peak = new PeakMemory(() => [pid]).start();
  try {
    const client = await sheetProject(server.url);
    await warmUp(client, b.cores);
    const run = await asyncRun(client, [pid], 600, 0);
    // Raw Typst again while the service idles, then its latency right before the sync run.
    const throughputAfter = await rawThroughput(doc, records, b.cores);
    const latency = await rawLatency(doc, records);
    const docsPerSec = bracket(throughput.docsPerSec, throughputAfter.docsPerSec);
    const times = await syncTimes(client, 1000, 150);
    const latencyAfter = await rawLatency(doc, records);
    const p50s = bracket(latency.p50Ms, latencyAfter.p50Ms);
    const p95s = bracket(latency.p95Ms, latencyAfter.p95Ms);
    const rawTypst = {
      processes: b.cores,
      docsPerSec: +mean(docsPerSec).toFixed(1),
      throughputP50Ms: +((throughput.p50Ms + throughputAfter.p50Ms) / 2).toFixed(2),
      latencyP50Ms: +mean(p50s).toFixed(2),
      latencyP95Ms: +mean(p95s).toFixed(2),
      cpuMsPerDoc: +((throughput.cpuMsPerDoc * throughput.docs + throughputAfter.cpuMsPerDoc * throughputAfter.docs) / (throughput.docs + throughputAfter.docs)).toFixed(2),
      machine: throughput.machine,
      brackets: { docsPerSec, latencyP50Ms: p50s, latencyP95Ms: p95s },
    };
    b.results.rawTypst = rawTypst satisfies SheetResults['rawTypst'];
    b.results.async = perTicket(run, rawTypst.docsPerSec) satisfies SheetResults['async'];
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    b.results.sync = {
      requests: times.length,
      p50Ms: +p50.toFixed(1),
      p95Ms: +p95.toFixed(1),
      p99Ms: +percentile(times, 99).toFixed(1),
      overP50Ms: +(p50 - rawTypst.latencyP50Ms).toFixed(1),
      overP95Ms: +(p95 - rawTypst.latencyP95Ms).toFixed(1),
    } satisfies SheetResults['sync'];
    // The peak memory figure covers warm-up, async and sync, as before; the warm runs are context.
    b.results.memory = mib(peak.stop()) satisfies SheetResults['memory'];
    await asyncRun(client, [pid], WARM_TICKETS, 10_000);
    const warmRun = await asyncRun(client, [pid], 600, 20_000);
    const warmTimes = await syncTimes(client, 30_000, 150);
    const wp50 = percentile(warmTimes, 50);
    const wp95 = percentile(warmTimes, 95);
    b.results.warm = {
      afterTickets: 10 * b.cores + 600 + 150 + WARM_TICKETS,
      async: perTicket(warmRun, rawTypst.docsPerSec),
      sync: { p50Ms: +wp50.toFixed(1), p95Ms: +wp95.toFixed(1), overP50Ms: +(wp50 - rawTypst.latencyP50Ms).toFixed(1), overP95Ms: +(wp95 - rawTypst.latencyP95Ms).toFixed(1) },
    } satisfies SheetResults['warm'];
  } finally {
    b.results.memory ??= mib(peak.stop()) satisfies SheetResults['memory'];
    await server.stop();
  }
}
