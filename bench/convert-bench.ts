// npm run bench -- convert: one A4 page (the benchmark page: text, a table and a 50 KB photo)
// converted at 150 dpi. Measured three ways: MuPDF on this thread (the conversion itself), through
// the MuPDF engine (a pooled child process, as the convert step runs it), and end to end as the extra
// latency `convert=f=png` adds to a synchronous render over HTTP.
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import * as mupdf from 'mupdf';
import pino from 'pino';
import { MupdfEngine } from '../src/engines/mupdf/index.js';
import { readBuiltinTemplate, readHelperLibrary } from '../src/repository/builtin-templates.js';
import { JOB_ROOT } from '../src/engines/typst/index.js';
import { benchData, benchZip } from './pdf-bench.js';
import { startBenchServer } from './server-process.js';

const p50 = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
const p90 = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!.toFixed(1);

/** The benchmark page as a one-page A4 PDF, compiled with the built-in default template. */
async function benchPdf(): Promise<Buffer> {
  const { xml, png } = benchData();
  const compiler = NodeCompiler.create({ workspace: JOB_ROOT });
  compiler.mapShadow(`${JOB_ROOT}/master-documents/default.typ`, (await readBuiltinTemplate('default'))!);
  compiler.mapShadow(`${JOB_ROOT}/pressroom/lib.typ`, await readHelperLibrary());
  compiler.mapShadow(`${JOB_ROOT}/data.xml`, Buffer.from(xml));
  compiler.mapShadow(`${JOB_ROOT}/images/photo.png`, png);
  const inputs = { ticket: 'BENCH', tenant: 'acme', project: 'shop', user: 'admin', foreignKey: '', documentTemplate: 'default', dataFile: '/data.xml', createdAt: new Date().toISOString(), resources: 'images/photo.png' };
  const doc = compiler.compile({ mainFilePath: `${JOB_ROOT}/master-documents/default.typ`, inputs }).result;
  if (!doc) throw new Error('benchmark page did not compile');
  return Buffer.from(compiler.pdf(doc, { pdfTags: false }));
}

/** Open, draw page 1 at 150 dpi and encode, on this thread. */
function inProcess(pdf: Buffer, format: 'png' | 'jpg'): number {
  const started = performance.now();
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  const page = doc.loadPage(0);
  const [x0, y0, x1, y1] = page.getBounds();
  const w = Math.round(((x1 - x0) * 150) / 72);
  const h = Math.round(((y1 - y0) * 150) / 72);
  const pixmap = page.toPixmap(mupdf.Matrix.scale(w / (x1 - x0), h / (y1 - y0)), mupdf.ColorSpace.DeviceRGB, false, true);
  if (format === 'png') pixmap.asPNG();
  else pixmap.asJPEG(75, false);
  pixmap.destroy();
  page.destroy();
  doc.destroy();
  return performance.now() - started;
}

async function viaPool(pool: MupdfEngine, pdf: Buffer, format: 'png' | 'jpg'): Promise<{ ms: number; width: number; height: number }> {
  const started = performance.now();
  let size = { width: 0, height: 0 };
  await pool.convert({ pdf, format, resolution: 150, quality: 75, pages: { kind: 'page', page: 1 } }, (img) => (size = { width: img.width, height: img.height }));
  return { ms: performance.now() - started, ...size };
}

async function syncLatency(base: string, auth: Record<string, string>, body: Buffer, convert: boolean, n: number): Promise<number[]> {
  const url = `${base}/rest/tenants/acme/projects/shop/renderpdf?timeToWait=60000${convert ? '&convert=f%3Dpng' : ''}`;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', body, headers: { ...auth, 'content-type': 'application/zip', accept: convert ? 'image/png' : 'application/pdf' } });
    if (res.status !== 200) throw new Error(`sync render${convert ? ' with convert' : ''}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}

async function token(base: string, tenant: string, project: string, scope: string): Promise<string> {
  const body = new URLSearchParams({ username: 'admin', password: 'bench-admin-pw', project, scope }).toString();
  const res = await fetch(`${base}/auth/${tenant}/tokens`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Runs the convert benchmark (dist/ must be built) and returns its figures in milliseconds. */
export async function convertBench(): Promise<Record<string, unknown>> {
  const pdf = await benchPdf();
  const runs = 40;
  const raw = { png: [] as number[], jpg: [] as number[] };
  for (let i = 0; i < 5; i++) inProcess(pdf, 'png');
  for (let i = 0; i < runs; i++) raw.png.push(inProcess(pdf, 'png'));
  for (let i = 0; i < runs; i++) raw.jpg.push(inProcess(pdf, 'jpg'));

  const pool = new MupdfEngine({ size: 1, timeoutMs: 60_000, logger: pino({ level: 'warn' }) });
  const pooled = { png: [] as number[], jpg: [] as number[] };
  let size = '';
  try {
    for (let i = 0; i < 5; i++) await viaPool(pool, pdf, 'png');
    for (let i = 0; i < runs; i++) {
      const r = await viaPool(pool, pdf, 'png');
      pooled.png.push(r.ms);
      size = `${r.width}x${r.height}`;
    }
    for (let i = 0; i < runs; i++) pooled.jpg.push((await viaPool(pool, pdf, 'jpg')).ms);
  } finally {
    await pool.close();
  }

  const server = await startBenchServer({ PRESSROOM_RENDER_THREADS: '1' });
  let e2e: { pdfP50: number; pngP50: number };
  try {
    const base = server.url;
    const op = { authorization: `Bearer ${await token(base, 'system', 'admin', 'admin')}`, accept: 'application/json' };
    await fetch(`${base}/rest/tenants?name=acme`, { method: 'POST', headers: op });
    await fetch(`${base}/rest/tenants/acme/projects?name=shop`, { method: 'POST', headers: op });
    const auth = { authorization: `Bearer ${await token(base, 'acme', 'shop', 'jobs')}` };
    const body = await benchZip();
    await syncLatency(base, auth, body, true, 5);
    const plain = await syncLatency(base, auth, body, false, 30);
    const converted = await syncLatency(base, auth, body, true, 30);
    e2e = { pdfP50: p50(plain), pngP50: p50(converted) };
  } finally {
    await server.stop();
  }
  return {
    page: `A4 at 150 dpi, ${size} pixels, target <= 60 ms`,
    mupdfOnThread: { pngP50Ms: p50(raw.png), pngP90Ms: p90(raw.png), jpgP50Ms: p50(raw.jpg) },
    convertPool: { pngP50Ms: p50(pooled.png), pngP90Ms: p90(pooled.png), jpgP50Ms: p50(pooled.jpg) },
    syncHttp: { pdfP50Ms: e2e.pdfP50, withConvertPngP50Ms: e2e.pngP50, addedMs: +(e2e.pngP50 - e2e.pdfP50).toFixed(1) },
  };
}
