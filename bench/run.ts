// npm run bench: end-to-end numbers for the README and issue notes. Builds dist/ first so
// the server runs as it does in production. Prints a table and writes .bench/results.json.
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { readBuiltinTemplate, readHelperLibrary } from '../src/repository/builtin-templates.js';
import { JOB_ROOT } from '../src/engines/typst/index.js';
import { convertBench } from './convert-bench.js';
import { fanoutBench } from './fanout-bench.js';
import { pptxBench } from './pptx-bench.js';
import { benchData, benchZip, rawTypst } from './pdf-bench.js';
import { rssMiB, startBenchServer } from './server-process.js';
import { xsltBench } from './xslt-bench.js';

const cores = availableParallelism();
const results: Record<string, unknown> = { cores, node: process.version, date: new Date().toISOString() };
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

async function json(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { ...init, headers: { accept: 'application/json', ...(init.headers as Record<string, string>) } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

async function token(base: string, tenant: string, project: string, scope: string): Promise<string> {
  const body = new URLSearchParams({ username: 'admin', password: 'bench-admin-pw', project, scope }).toString();
  const r = await json(`${base}/auth/${tenant}/tokens`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return r.access_token as string;
}

async function pdfBench(): Promise<void> {
  const { xml, png } = benchData();
  const files: [string, Buffer][] = [
    [`${JOB_ROOT}/master-documents/default.typ`, (await readBuiltinTemplate('default'))!],
    [`${JOB_ROOT}/pressroom/lib.typ`, await readHelperLibrary()],
    [`${JOB_ROOT}/data.xml`, Buffer.from(xml)],
    [`${JOB_ROOT}/images/photo.png`, png],
  ];
  const inputs = { ticket: 'BENCH', tenant: 'acme', project: 'shop', user: 'admin', foreignKey: '', documentTemplate: 'default', dataFile: '/data.xml', createdAt: new Date().toISOString(), resources: 'images/photo.png' };
  const raw = await rawTypst(files, `${JOB_ROOT}/master-documents/default.typ`, inputs, cores);
  results.rawTypst = { threads: cores, docsPerSec: +raw.docsPerSec.toFixed(1), compileP50Ms: +raw.p50.toFixed(2) };

  const server = await startBenchServer({ PRESSROOM_RENDER_THREADS: String(cores) });
  try {
    const base = server.url;
    const op = await token(base, 'system', 'admin', 'admin');
    const auth = { authorization: `Bearer ${op}` };
    await json(`${base}/rest/tenants?name=acme`, { method: 'POST', headers: auth });
    await json(`${base}/rest/tenants/acme/projects?name=shop`, { method: 'POST', headers: auth });
    const jobs = { authorization: `Bearer ${await token(base, 'acme', 'shop', 'jobs')}` };
    const body = await benchZip();
    const renderUrl = `${base}/rest/tenants/acme/projects/shop/renderpdf`;

    // Warm up the render processes.
    for (let i = 0; i < 20; i++) await json(renderUrl, { method: 'POST', body, headers: { ...jobs, 'content-type': 'application/zip' } });
    await waitIdle(base, jobs);

    let peak = { self: 0, children: 0 };
    const sampler = setInterval(() => {
      const now = rssMiB(server.child.pid!);
      if (now.self + now.children > peak.self + peak.children) peak = now;
    }, 100);
    const n = 600;
    const started = performance.now();
    const submitters = Array.from({ length: 8 }, async (_, w) => {
      for (let i = w; i < n; i += 8) await json(renderUrl, { method: 'POST', body, headers: { ...jobs, 'content-type': 'application/zip' } });
    });
    await Promise.all(submitters);
    await waitIdle(base, jobs);
    const seconds = (performance.now() - started) / 1000;
    results.asyncHttp = { tickets: n, docsPerSec: +(n / seconds).toFixed(1), ofRaw: `${Math.round((100 * n) / seconds / raw.docsPerSec)} %` };

    const latencies: number[] = [];
    for (let i = 0; i < 150; i++) {
      const t = performance.now();
      const res = await fetch(`${renderUrl}?timeToWait=60000`, { method: 'POST', body, headers: { ...jobs, 'content-type': 'application/zip', accept: 'application/pdf' } });
      if (res.status !== 200) throw new Error(`sync render: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
    }
    clearInterval(sampler);
    results.syncHttp = { requests: latencies.length, p50Ms: +percentile(latencies, 50).toFixed(1), p99Ms: +percentile(latencies, 99).toFixed(1), rawCompileP50Ms: +raw.p50.toFixed(1) };
    results.rssMiB = { server: Math.round(peak.self), renderProcesses: Math.round(peak.children), total: Math.round(peak.self + peak.children) };
  } finally {
    await server.stop();
  }
}

async function waitIdle(base: string, headers: Record<string, string>): Promise<void> {
  for (;;) {
    const res = await fetch(`${base}/rest/tenants/acme/projects/shop/tickets`, { headers: { ...headers, accept: 'application/json' } });
    const open = (await res.json()) as string[];
    if (open.length === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Benchmark sections by name; `npm run bench -- fanout pdf` runs only those named. */
const sections: Record<string, () => Promise<void>> = {
  pdf: pdfBench,
  fanout: async () => {
    results.fanout1000 = await fanoutBench(cores);
  },
  pptx: async () => {
    results.pptx20Slides = await pptxBench(50);
  },
  convert: async () => {
    results.convertA4 = await convertBench();
  },
  xslt: async () => {
    results.xslt = await xsltBench();
  },
};
const wanted = process.argv.slice(2);
for (const name of wanted) if (!(name in sections)) throw new Error(`unknown bench section ${name}; known: ${Object.keys(sections).join(', ')}`);
execSync('npm run build --silent', { stdio: 'inherit' });
for (const [name, run] of Object.entries(sections)) if (wanted.length === 0 || wanted.includes(name)) await run();
console.log(JSON.stringify(results, null, 2));
mkdirSync('.bench', { recursive: true });
writeFileSync('.bench/results.json', JSON.stringify(results, null, 2) + '\n');
