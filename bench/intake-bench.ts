// Section `intake`: a burst of 2000 asynchronous submissions from 16 concurrent clients while
// the workers render: how long a client waits for its 202, and whether any request fails.
import { sheetZip } from './documents.js';
import { percentile } from './fixtures.js';
import { submitAll } from './api.js';
import { mib } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import { startBenchServer } from './server-process.js';
import { renderEnv, SHEET_QUERY, sheetProject, warmUp, type BenchContext } from './sheet-bench.js';

export interface IntakeResults {
  submissions: number;
  clients: number;
  seconds: number;
  accepted: number;
  serverErrors: number;
  otherErrors: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  memory: ReturnType<typeof mib>;
}

export async function intakeBench(b: BenchContext, submissions = 2000, clients = 16): Promise<void> {
  // 256 distinct records, built before the clock starts.
  const bodies = Array.from({ length: 256 }, (_, i) => sheetZip(5000 + i));
  const server = await startBenchServer(renderEnv(b.cores));
  const peak = new PeakMemory(() => [server.child.pid!]).start();
  try {
    const client = await sheetProject(server.url);
    await warmUp(client, b.cores);
    const started = performance.now();
    const answers = await submitAll(client, submissions, clients, (i) => bodies[i % bodies.length]!, SHEET_QUERY);
    const seconds = (performance.now() - started) / 1000;
    const ok = answers.filter((a) => a.status === 202).map((a) => a.ms);
    const serverErrors = answers.filter((a) => a.status >= 500).length;
    b.results.intake = {
      submissions,
      clients,
      seconds: +seconds.toFixed(2),
      accepted: ok.length,
      serverErrors,
      otherErrors: answers.length - ok.length - serverErrors,
      p50Ms: +percentile(ok, 50).toFixed(1),
      p95Ms: +percentile(ok, 95).toFixed(1),
      p99Ms: +percentile(ok, 99).toFixed(1),
      maxMs: +Math.max(...ok).toFixed(1),
      memory: mib(peak.stop()),
    } satisfies IntakeResults;
    // The queued tickets are left to the stop: the workers' grace period ends them.
  } finally {
    peak.stop();
    await server.stop();
  }
}
