import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { fanoutItem, partRaw, partTemplate } from './documents.js';
import { cpuByScript, cpuSince, descendantCpu, machineCpu, machineLoad, mib, treeCpu } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import { rawThroughput } from './raw-typst.js';
import { startBenchServer } from './server-process.js';
import { bracket, mean, type Bracket } from './sheet-bench.js';

/**
 * A 1000-part fanout with aggregate, end to end: one synchronous request that submits, renders
 * every part (bench/templates/part.typ), merges and answers with the merged PDF; on a server
 * that has run a fanout of 10 × cores parts first. Beside it, raw Typst's time for the same
 * parts on as many processes, right before and right after the service's run (averaged, as the
 * `pdf` section does). And where the CPU went meanwhile: the service's process, its render
 * processes and its MuPDF process, since on a busy machine every process's CPU comes out of the
 * same cores.
 */
export interface FanoutResults {
  /** Parts stored for the aggregate. */
  parts: number;
  /** From the POST until the merged PDF was read. */
  endToEndSeconds: number;
  /** Raw Typst's time for the same parts: the mean of {@link rawAround}. */
  rawSeconds: number;
  rawAround?: Bracket;
  phases: Record<string, number>;
  status: string;
  mergedPages: number;
  /** Size of the merged PDF. */
  mergedMiB: number;
  memory: ReturnType<typeof mib>;
  /** From the POST until the merged PDF was read. */
  cpu?: {
    /** The service's process, all its threads. */
    serviceMsPerPart: number;
    /** The Typst render processes. */
    renderMsPerPart: number;
    /** Raw Typst's CPU for a part, as {@link rawSeconds} (mean of the two runs). */
    rawMsPerPart: number;
    /** The MuPDF process (started for the merge by the first part): its start, warm-up and the merge. */
    mupdfSeconds: number;
    /** The whole machine, from /proc/stat. */
    busyCores: number;
  };
}

export async function fanoutBench(cores: number, parts = 1000): Promise<FanoutResults> {
  const doc = await partRaw();
  const records = Array.from({ length: parts }, (_, i) => `<data>${fanoutItem(i)}</data>`);
  const raw = await rawThroughput(doc, records, cores, 3000);
  const service = await serviceRun(cores, parts);
  const rawAfter = await rawThroughput(doc, records, cores, 3000);
  const around = bracket(parts / raw.docsPerSec, parts / rawAfter.docsPerSec);
  const rawSeconds = +mean(around).toFixed(2);
  const rawCpuMsPerPart = +((raw.cpuMsPerDoc + rawAfter.cpuMsPerDoc) / 2).toFixed(2);
  return { ...service, rawSeconds, rawAround: around, cpu: { ...service.cpu, rawMsPerPart: rawCpuMsPerPart } };
}

async function serviceRun(cores: number, parts: number): Promise<Omit<FanoutResults, 'rawSeconds' | 'rawAround' | 'cpu'> & { cpu: Omit<NonNullable<FanoutResults['cpu']>, 'rawMsPerPart'> }> {
  const server = await startBenchServer({ PRESSROOM_RENDER_THREADS: String(cores) });
  const peak = new PeakMemory(() => [server.child.pid!]);
  try {
    const base = server.url;
    const form = (project: string, scope: string, tenant: string) =>
      fetch(`${base}/auth/${tenant}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ username: 'admin', password: 'bench-admin-pw', project, scope }).toString(),
      }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    const op = { authorization: `Bearer ${await form('admin', 'admin', 'system')}`, accept: 'application/json' };
    await fetch(`${base}/rest/tenants?name=acme`, { method: 'POST', headers: op });
    await fetch(`${base}/rest/tenants/acme/projects?name=fan`, { method: 'POST', headers: op });
    const admin = { authorization: `Bearer ${await form('fan', 'admin', 'acme')}`, accept: 'application/json' };
    await fetch(`${base}/rest/repository/files/tenants/acme/projects/fan/restapi/config.ion`, {
      method: 'PUT',
      headers: { ...admin, 'content-type': 'application/octet-stream' },
      body: '{ fanout: { enabled: true, itemAttribute: "" }, aggregate: { enabled: true }, documentTemplate: "part" }',
    });
    await fetch(`${base}/rest/repository/files/tenants/acme/projects/fan/master-documents/part.typ`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/octet-stream' }, body: partTemplate });
    // One synchronous fanout request (`timeToWait`, `Accept: application/pdf`): its answer is
    // the merged PDF, so the clock stops when the client holds the whole aggregate. Polling the
    // aggregate's status every 25 ms instead cost the shared cores a status request each time:
    // 0.13 s more end to end (3.49–3.71 s against 3.42–3.57 s, three alternated pairs, 2 cores).
    const fanout = async (n: number, first = 0) => {
      const body = `<data>${Array.from({ length: n }, (_, i) => fanoutItem(first + i)).join('')}</data>`;
      const started = performance.now();
      const res = await fetch(`${base}/rest/tenants/acme/projects/fan/renderpdf?timeToWait=120000`, { method: 'POST', headers: { ...admin, 'content-type': 'application/xml', accept: 'application/pdf' }, body });
      const pdf = Buffer.from(await res.arrayBuffer());
      const seconds = (performance.now() - started) / 1000;
      const aggregate = res.headers.get('x-ticket-id');
      if (res.status !== 200 || !aggregate || pdf.subarray(0, 5).toString('latin1') !== '%PDF-') {
        throw new Error(`fanout of ${n} parts: ${res.status} ${pdf.subarray(0, 300).toString()}`);
      }
      const status = (await (await fetch(`${base}/rest/tenants/acme/projects/fan/tickets/${aggregate}/status`, { headers: admin })).json()) as { status: string; processingPages: number };
      return { aggregate, seconds, status, bytes: pdf.length };
    };
    // Warmed up as the pdf section's server is (10 × cores tickets), and as raw Typst's
    // processes compile 3 documents before they are timed: the render processes' first
    // compiles and the MuPDF process's start and first merge are not the fanout's. Other
    // records than the measured ones, whose compiles Typst's cache would otherwise know.
    await fanout(10 * cores, 100_000);
    peak.start();
    const pid = server.child.pid!;
    const cpu0 = { service: treeCpu(pid), processes: descendantCpu(pid), machine: machineCpu() };
    const startedAt = Date.now();
    const { aggregate, seconds, status: s, bytes } = await fanout(parts);
    const machine = machineLoad(cpu0.machine);
    const byScript = cpuByScript(cpu0.processes, descendantCpu(pid));
    const msPerPart = (cpuSeconds: number) => +((cpuSeconds * 1000) / parts).toFixed(2);
    return {
      ...phases(server.data, aggregate, startedAt),
      endToEndSeconds: +seconds.toFixed(2),
      status: s.status,
      mergedPages: s.processingPages,
      mergedMiB: +(bytes / 2 ** 20).toFixed(1),
      memory: mib(peak.stop()),
      cpu: {
        serviceMsPerPart: msPerPart(cpuSince(pid, cpu0.service).self),
        renderMsPerPart: msPerPart(byScript['typst-child.js'] ?? 0),
        mupdfSeconds: +(byScript['mupdf-child.js'] ?? 0).toFixed(2),
        busyCores: machine.busyCores,
      },
    };
  } finally {
    peak.stop();
    await server.stop();
  }
}

/**
 * Where the seconds went, from the service's own records (SQLite file, read-only): how many
 * parts the aggregate has, when the first and the last finished, and how long its merge ran.
 */
function phases(data: string, aggregate: string, startedAt: number): { parts: number; phases: Record<string, number> } {
  const db = new SQLite(join(data, 'pressroom.db'), { readonly: true });
  try {
    const parts = db.prepare('select count(*) as n, min(completed) as first, max(completed) as last from tickets where aggregate_id = ?').get(aggregate) as { n: number; first: number; last: number };
    const merge = db.prepare('select min(started) as started, max(ended) as ended from step_events where ticket = ?').get(aggregate) as { started: number; ended: number };
    // A part's step from its claim to its commit; the parts running at once, on average.
    const steps = db.prepare('select avg(e.ended - e.started) as ms, sum(e.ended - e.started) as total from step_events e join tickets t on t.id = e.ticket where t.aggregate_id = ?').get(aggregate) as { ms: number; total: number };
    const s = (ms: number) => +(ms / 1000).toFixed(2);
    return {
      parts: parts.n,
      phases: {
        firstPartSeconds: s(parts.first - startedAt),
        lastPartSeconds: s(parts.last - startedAt),
        partStepMs: +steps.ms.toFixed(1),
        partsRunning: +(steps.total / (parts.last - startedAt)).toFixed(2),
        mergeSeconds: s(merge.ended - merge.started),
      },
    };
  } finally {
    db.close();
  }
}
