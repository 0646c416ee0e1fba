// Section `floor`: the `pdf` section's async and sync runs against floor-server.ts, an HTTP
// process that feeds the service's Typst pool and stores nothing. Raw Typst is measured around
// each run, as in the `pdf` section. The gap between this floor and raw Typst is what one HTTP
// process and its render processes cost on these cores before any queue, database or file: the
// part of the `async`, `service CPU` and `sync` targets that no change inside the service can
// reach.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'undici';
import { sheetRaw, sheetXml, sheetZip } from './documents.js';
import { percentile } from './fixtures.js';
import { cpuSince, treeCpu } from './procfs.js';
import { rawLatency, rawThroughput } from './raw-typst.js';
import { benchNodeFlags, listeningOn, SERVICE_START } from './server-process.js';
import { bracket, mean, type BenchContext, type Bracket } from './sheet-bench.js';

export interface FloorResults {
  raw: { docsPerSec: Bracket; latencyP50Ms: Bracket; latencyP95Ms: Bracket; cpuMsPerDoc: number };
  async: { tickets: number; docsPerSec: number; ofRaw: number; serverCpuMsPerTicket: number; renderCpuMsPerTicket: number };
  sync: { requests: number; p50Ms: number; p95Ms: number; overP50Ms: number; overP95Ms: number };
}

interface Floor {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts floor-server.ts with the Node.js flags and environment `npm start` gives the service, and those the bench was asked for. */
async function startFloor(cores: number): Promise<Floor> {
  const child = spawn(process.execPath, [...benchNodeFlags(), ...SERVICE_START.flags, '--import', 'tsx', 'bench/floor-server.ts'], {
    env: { ...process.env, ...SERVICE_START.env, PRESSROOM_RENDER_THREADS: String(cores) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningOn(child, /listening on (http:\/\/\S+)/, 'floor server');
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, child, stop };
}

async function post(url: string, body: Buffer): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/zip' } });
  await res.body.arrayBuffer();
  return { status: res.statusCode, ms: performance.now() - started };
}

/** `n` requests from `clients` concurrent clients, then until no render runs: docs/s and CPU per document. */
async function asyncRun(floor: Floor, n: number, first: number, clients = 8): Promise<{ docsPerSec: number; self: number; children: number }> {
  const bodies = Array.from({ length: n }, (_, i) => sheetZip(first + i));
  const cpu0 = treeCpu(floor.child.pid!);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; i < n; i += clients) {
        const { status } = await post(`${floor.url}/async`, bodies[i]!);
        if (status !== 202) throw new Error(`floor server answered ${status}`);
      }
    }),
  );
  await (await request(`${floor.url}/idle`)).body.arrayBuffer();
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSince(floor.child.pid!, cpu0);
  return { docsPerSec: n / seconds, self: (1000 * cpu.self) / n, children: (1000 * cpu.children) / n };
}

export async function floorBench(b: BenchContext): Promise<void> {
  const doc = await sheetRaw();
  const records = Array.from({ length: 256 }, (_, i) => sheetXml(i));
  const before = await rawThroughput(doc, records, b.cores);
  const floor = await startFloor(b.cores);
  try {
    await asyncRun(floor, 10 * b.cores, 100_000, 2 * b.cores);
    const run = await asyncRun(floor, 600, 0);
    const after = await rawThroughput(doc, records, b.cores);
    const latency = await rawLatency(doc, records);
    const times: number[] = [];
    for (let i = 0; i < 150; i++) {
      const answer = await post(`${floor.url}/sync`, sheetZip(1000 + i));
      if (answer.status !== 200) throw new Error(`floor server answered ${answer.status}`);
      times.push(answer.ms);
    }
    const latencyAfter = await rawLatency(doc, records);
    const raw = {
      docsPerSec: bracket(before.docsPerSec, after.docsPerSec),
      latencyP50Ms: bracket(latency.p50Ms, latencyAfter.p50Ms),
      latencyP95Ms: bracket(latency.p95Ms, latencyAfter.p95Ms),
      cpuMsPerDoc: +((before.cpuMsPerDoc * before.docs + after.cpuMsPerDoc * after.docs) / (before.docs + after.docs)).toFixed(2),
    };
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    b.results.floor = {
      raw,
      async: {
        tickets: 600,
        docsPerSec: +run.docsPerSec.toFixed(1),
        ofRaw: +(run.docsPerSec / mean(raw.docsPerSec)).toFixed(3),
        serverCpuMsPerTicket: +run.self.toFixed(2),
        renderCpuMsPerTicket: +run.children.toFixed(2),
      },
      sync: { requests: times.length, p50Ms: +p50.toFixed(1), p95Ms: +p95.toFixed(1), overP50Ms: +(p50 - mean(raw.latencyP50Ms)).toFixed(1), overP95Ms: +(p95 - mean(raw.latencyP95Ms)).toFixed(1) },
    } satisfies FloorResults;
  } finally {
    await floor.stop();
  }
}
