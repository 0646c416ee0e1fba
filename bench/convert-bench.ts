// npm run bench -- convert: one A4 page (the benchmark page: text, a table and a 50 KB photo)
// converted at 150 dpi to PNG and to JPEG (quality 75). Measured three ways: through the MuPDF
// engine (a pooled child process, as the convert step runs it: the headline pngP50Ms and
// jpegP50Ms), its two parts on this thread (MuPDF drawing the page, libvips encoding it), and end
// to end as the extra latency `convert=f=png` and `convert=f=jpg` add to a synchronous render
// over HTTP.
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import * as mupdf from 'mupdf';
import pino from 'pino';
import { encodeRgb } from '../src/engines/mupdf/encode.js';
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

let scratch = Buffer.alloc(0);

/** Open and draw page 1 at 150 dpi on this thread, as the convert process does: the RGB pixels and their size. */
function drawOnThread(pdf: Buffer): { ms: number; pixels: Buffer; width: number; height: number } {
  const started = performance.now();
  const doc = mupdf.Document.openDocument(pdf, 'application/pdf');
  const page = doc.loadPage(0);
  const [x0, y0, x1, y1] = page.getBounds();
  const w = Math.round(((x1 - x0) * 150) / 72);
  const h = Math.round(((y1 - y0) * 150) / 72);
  const pixmap = page.toPixmap(mupdf.Matrix.scale(w / (x1 - x0), h / (y1 - y0)), mupdf.ColorSpace.DeviceRGB, false, true);
  // Into a buffer reused from the last page, as the convert process does.
  const view = pixmap.getPixels();
  if (scratch.length !== view.byteLength) scratch = Buffer.allocUnsafeSlow(view.byteLength);
  scratch.set(view);
  const pixels = scratch;
  const size = { width: pixmap.getWidth(), height: pixmap.getHeight() };
  pixmap.destroy();
  page.destroy();
  doc.destroy();
  return { ms: performance.now() - started, pixels, ...size };
}

async function encodeOnThread(raster: { pixels: Buffer; width: number; height: number }, format: 'png' | 'jpg'): Promise<number> {
  const started = performance.now();
  await encodeRgb(raster.pixels, raster.width, raster.height, format, 75, 150);
  return performance.now() - started;
}

async function viaPool(pool: MupdfEngine, pdf: Buffer, format: 'png' | 'jpg'): Promise<{ ms: number; width: number; height: number; bytes: number }> {
  const started = performance.now();
  let image = { width: 0, height: 0, bytes: 0 };
  await pool.convert({ pdf, format, resolution: 150, quality: 75, pages: { kind: 'page', page: 1 } }, (img) => (image = { width: img.width, height: img.height, bytes: img.data.length }));
  return { ms: performance.now() - started, ...image };
}

async function syncLatency(base: string, auth: Record<string, string>, body: Buffer, convert: 'png' | 'jpg' | undefined, n: number): Promise<number[]> {
  const url = `${base}/rest/tenants/acme/projects/shop/renderpdf?timeToWait=60000${convert ? `&convert=f%3D${convert}` : ''}`;
  const accept = convert === 'png' ? 'image/png' : convert === 'jpg' ? 'image/jpeg' : 'application/pdf';
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', body, headers: { ...auth, 'content-type': 'application/zip', accept } });
    if (res.status !== 200) throw new Error(`sync render${convert ? ` with convert to ${convert}` : ''}: ${res.status} ${await res.text()}`);
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

/** What `convertBench` measures, in milliseconds; `pngP50Ms` and `jpegP50Ms` are the headline figures (through the engine). */
export interface ConvertBenchResult {
  page: string;
  /** p50 of one conversion through the MuPDF engine (pooled child process), as the convert step runs it. */
  pngP50Ms: number;
  jpegP50Ms: number;
  pngP90Ms: number;
  jpegP90Ms: number;
  targets: { pngP50Ms: number; jpegP50Ms: number };
  bytes: { png: number; jpeg: number };
  /** The two parts on this thread: MuPDF drawing the page (with the copy of its pixels), libvips encoding it. */
  onThread: { drawP50Ms: number; pngEncodeP50Ms: number; jpegEncodeP50Ms: number };
  /** A synchronous render over HTTP, plain and with `convert=f=png` / `f=jpg`. */
  syncHttp: { pdfP50Ms: number; pngP50Ms: number; jpegP50Ms: number; pngAddedMs: number; jpegAddedMs: number };
}

/** Runs the convert benchmark (dist/ must be built) and returns its figures in milliseconds. */
export async function convertBench(): Promise<ConvertBenchResult> {
  const pdf = await benchPdf();
  const runs = 40;

  const pool = new MupdfEngine({ size: 1, timeoutMs: 60_000, logger: pino({ level: 'warn' }) });
  const pooled = { png: [] as number[], jpg: [] as number[] };
  const bytes = { png: 0, jpeg: 0 };
  let size = '';
  try {
    for (let i = 0; i < 5; i++) {
      await viaPool(pool, pdf, 'png');
      await viaPool(pool, pdf, 'jpg');
    }
    // Alternated, so both formats see the same machine.
    for (let i = 0; i < runs; i++) {
      const png = await viaPool(pool, pdf, 'png');
      const jpg = await viaPool(pool, pdf, 'jpg');
      pooled.png.push(png.ms);
      pooled.jpg.push(jpg.ms);
      size = `${png.width}x${png.height}`;
      bytes.png = png.bytes;
      bytes.jpeg = jpg.bytes;
    }
  } finally {
    await pool.close();
  }

  const parts = { draw: [] as number[], png: [] as number[], jpg: [] as number[] };
  for (let i = 0; i < 5; i++) await encodeOnThread(drawOnThread(pdf), 'png');
  for (let i = 0; i < runs; i++) {
    const raster = drawOnThread(pdf);
    parts.draw.push(raster.ms);
    parts.png.push(await encodeOnThread(raster, 'png'));
    parts.jpg.push(await encodeOnThread(raster, 'jpg'));
  }

  const server = await startBenchServer({ PRESSROOM_RENDER_THREADS: '1' });
  let syncHttp: ConvertBenchResult['syncHttp'];
  try {
    const base = server.url;
    const op = { authorization: `Bearer ${await token(base, 'system', 'admin', 'admin')}`, accept: 'application/json' };
    await fetch(`${base}/rest/tenants?name=acme`, { method: 'POST', headers: op });
    await fetch(`${base}/rest/tenants/acme/projects?name=shop`, { method: 'POST', headers: op });
    const auth = { authorization: `Bearer ${await token(base, 'acme', 'shop', 'jobs')}` };
    const body = await benchZip();
    await syncLatency(base, auth, body, 'png', 5);
    await syncLatency(base, auth, body, 'jpg', 5);
    const plain = p50(await syncLatency(base, auth, body, undefined, 30));
    const png = p50(await syncLatency(base, auth, body, 'png', 30));
    const jpeg = p50(await syncLatency(base, auth, body, 'jpg', 30));
    syncHttp = { pdfP50Ms: plain, pngP50Ms: png, jpegP50Ms: jpeg, pngAddedMs: +(png - plain).toFixed(1), jpegAddedMs: +(jpeg - plain).toFixed(1) };
  } finally {
    await server.stop();
  }
  const result: ConvertBenchResult = {
    page: `A4 at 150 dpi, ${size} pixels, JPEG quality 75`,
    pngP50Ms: p50(pooled.png),
    jpegP50Ms: p50(pooled.jpg),
    pngP90Ms: p90(pooled.png),
    jpegP90Ms: p90(pooled.jpg),
    targets: { pngP50Ms: 25, jpegP50Ms: 35 },
    bytes,
    onThread: { drawP50Ms: p50(parts.draw), pngEncodeP50Ms: p50(parts.png), jpegEncodeP50Ms: p50(parts.jpg) },
    syncHttp,
  };
  console.log(`convert, ${result.page}, through the engine: PNG p50 ${result.pngP50Ms} ms, JPEG p50 ${result.jpegP50Ms} ms (targets <= 25 and <= 35 ms)`);
  return result;
}
