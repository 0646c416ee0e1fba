// Raw Typst: the benchmark documents compiled to PDF in a loop in plain Node processes, with no
// service around them: the engine's speed that the service is measured against. Processes, not
// worker threads, as the service runs Typst: Typst memoizes in one cache per process, which
// threads of one process would share.
import { spawn } from 'node:child_process';
import { percentile } from './fixtures.js';
import { cpuSince, machineCpu, machineLoad, mib, treeCpu } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import type { RawDocument } from './documents.js';

// Like a render process: the same compiler, files mapped once, data.xml and the per-job
// sys.inputs (ticket, createdAt) new for every document, compile + PDF without tags, and the
// compiler's cache trimmed after every document to what that document used.
const rawProcess = `
const { NodeCompiler } = require('@myriaddreamin/typst-ts-node-compiler');
process.once('message', (w) => {
  const c = NodeCompiler.create({ workspace: '/pressroom-job' });
  for (const [p, b] of w.files) c.mapShadow(p, Buffer.from(b));
  let k = w.first;
  function once() {
    const t = performance.now();
    const cpu = process.cpuUsage();
    c.mapShadow(w.dataPath, Buffer.from(w.records[k % w.records.length]));
    const inputs = { ...w.inputs, ticket: 'RAW' + String(k).padStart(23, '0'), createdAt: new Date().toISOString() };
    k += w.step;
    const result = c.compile({ mainFilePath: w.main, inputs });
    const doc = result.result;
    if (!doc) throw new Error('raw compile failed: ' + JSON.stringify(c.fetchDiagnostics(result.takeError())));
    const pdf = c.pdf(doc, { pdfTags: false });
    const ms = performance.now() - t;
    // The trim counts as CPU (a render process spends it too) but not as latency.
    c.evictCache(1);
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000, pages: doc.numOfPages, bytes: pdf.length };
  }
  for (let i = 0; i < w.warmup; i++) once();
  const times = [];
  let cpuMs = 0;
  let last;
  const started = performance.now();
  const end = Date.now() + w.ms;
  while (times.length < w.count && Date.now() < end) { last = once(); times.push(last.ms); cpuMs += last.cpuMs; }
  process.send({ times, cpuMs, elapsedMs: performance.now() - started, pages: last.pages, bytes: last.bytes }, () => process.exit(0));
});
`;

interface RawRun {
  times: number[];
  /** CPU of the timed documents together (the process's own, Typst's threads included). */
  cpuMs: number;
  elapsedMs: number;
  pages: number;
  bytes: number;
}

/** `processes` raw Typst processes side by side; the peak PSS of all of them together. */
async function runProcesses(doc: RawDocument, records: string[], processes: number, opts: { ms: number; count: number; warmup: number }, sampleMemory = false, env: Record<string, string> = {}): Promise<{ runs: RawRun[]; memory: ReturnType<typeof mib> }> {
  const children = Array.from({ length: processes }, () => spawn(process.execPath, ['-e', rawProcess], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', env: { ...process.env, ...env } }));
  const peak = new PeakMemory(() => children.map((c) => c.pid!), 100);
  if (sampleMemory) peak.start();
  try {
    const runs = await Promise.all(
      children.map((child, t) => {
        const done = new Promise<RawRun>((resolve, reject) => {
          let result: RawRun | undefined;
          child.once('message', (m) => (result = m as RawRun));
          // Resolved once the process has ended (and was waited for), so its CPU time is final.
          child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`raw Typst process exited (${code}) without a result`))));
        });
        child.send({ ...doc, records, first: t, step: processes, ...opts });
        return done;
      }),
    );
    return { runs, memory: mib(peak.stop()) };
  } finally {
    peak.stop();
    for (const c of children) if (c.exitCode === null) c.kill();
  }
}

/**
 * Documents per second with `processes` processes compiling side by side for `ms`, their CPU
 * per document, and how busy the machine was meanwhile (run it while no server runs: every
 * descendant of this process counts as raw Typst).
 */
export async function rawThroughput(doc: RawDocument, records: string[], processes: number, ms = 5000): Promise<{ processes: number; docs: number; docsPerSec: number; p50Ms: number; cpuMsPerDoc: number; machine: ReturnType<typeof machineLoad> }> {
  const machine0 = machineCpu();
  const tree0 = treeCpu(process.pid);
  const { runs } = await runProcesses(doc, records, processes, { ms, count: Infinity, warmup: 3 });
  const machine = machineLoad(machine0, cpuSince(process.pid, tree0).children);
  const docs = runs.reduce((s, r) => s + r.times.length, 0);
  const docsPerSec = runs.reduce((s, r) => s + r.times.length / (r.elapsedMs / 1000), 0);
  const cpuMsPerDoc = runs.reduce((s, r) => s + r.cpuMs, 0) / docs;
  return { processes, docs, docsPerSec: +docsPerSec.toFixed(1), p50Ms: +percentile(runs.flatMap((r) => r.times), 50).toFixed(2), cpuMsPerDoc: +cpuMsPerDoc.toFixed(2), machine };
}

/** Latency of one compile at a time (one process), as a synchronous request sees the engine. */
export async function rawLatency(doc: RawDocument, records: string[], count = 200): Promise<{ docs: number; p50Ms: number; p95Ms: number }> {
  const { runs } = await runProcesses(doc, records, 1, { ms: 60_000, count, warmup: 5 });
  const run = runs[0]!;
  return { docs: run.times.length, p50Ms: +percentile(run.times, 50).toFixed(2), p95Ms: +percentile(run.times, 95).toFixed(2) };
}

/**
 * One document (`xml`) compiled once in a fresh process, after a warm-up compile of `warmXml`
 * (other data: Typst's memo cache would make a second compile of the same data nearly free).
 * `env` adds to the process's environment.
 */
export async function rawOnce(doc: RawDocument, warmXml: string, xml: string, env: Record<string, string> = {}): Promise<{ ms: number; cpuMs: number; pages: number; bytes: number; memory: ReturnType<typeof mib> }> {
  const { runs, memory } = await runProcesses(doc, [warmXml, xml], 1, { ms: 3_600_000, count: 1, warmup: 1 }, true, env);
  const run = runs[0]!;
  return { ms: Math.round(run.times[0]!), cpuMs: Math.round(run.cpuMs), pages: run.pages, bytes: run.bytes, memory };
}
