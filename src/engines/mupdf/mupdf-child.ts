// A MuPDF process: draws PDF pages with MuPDF (WASM) and encodes them to PNG or JPEG with libvips
// (sharp, native). The work is CPU-bound, so it runs out of the service's event loop; the pool
// stops a process that runs past its time limit or memory ceiling, and replaces one whose WASM
// memory has grown too far (WASM memory never shrinks).
import type * as MuPDF from 'mupdf';
import { serveJobs } from '../pool/index.js';
import { encodeRgb } from './encode.js';
import { selectPages } from './pages.js';
import { mergePdfs } from './merge.js';
import { MAX_PAGE_PIXELS, MAX_TOTAL_PIXELS, type ConvertJob, type ConvertOutcome, type ConvertProgress, type MergeJob, type MergeOutcome, type MupdfJob, type PageImage } from './protocol.js';

const mupdf: typeof MuPDF = await import('mupdf');
mupdf.setLog(null);

/** The pixel size of a page at `dpi`, lowered to stay within MAX_PAGE_PIXELS. */
function rasterSize(widthPt: number, heightPt: number, dpi: number): { width: number; height: number; resolution: number } {
  const width = Math.max(1, Math.round((widthPt * dpi) / 72));
  const height = Math.max(1, Math.round((heightPt * dpi) / 72));
  if (width * height <= MAX_PAGE_PIXELS) return { width, height, resolution: dpi };
  const lowered = dpi * Math.sqrt(MAX_PAGE_PIXELS / (width * height));
  return { width: Math.max(1, Math.floor((widthPt * lowered) / 72)), height: Math.max(1, Math.floor((heightPt * lowered) / 72)), resolution: Math.floor(lowered) };
}

function pageBox(doc: MuPDF.Document, page: number): MuPDF.Rect {
  const p = doc.loadPage(page - 1);
  try {
    return p.getBounds();
  } finally {
    p.destroy();
  }
}

/**
 * Pages up to this many bytes of pixels are copied into one buffer kept for the process's later
 * pages (A4 at 300 dpi is 26 MB): a fresh buffer costs its page faults, 2.3 ms for A4 at 150 dpi,
 * while copying into one already mapped takes 0.4 ms. Larger pages get a buffer of their own.
 */
const KEEP_PIXELS_BYTES = 64 * 1024 * 1024;
let kept: Buffer | undefined;

/** A buffer for `bytes` of pixels, free again once the encoder is done with it. */
function pixelBuffer(bytes: number): Buffer {
  if (bytes > KEEP_PIXELS_BYTES) return Buffer.allocUnsafeSlow(bytes);
  if (!kept || kept.length < bytes) kept = Buffer.allocUnsafeSlow(bytes);
  return kept.subarray(0, bytes);
}

/** A page's RGB pixels, rows packed, copied out of MuPDF's memory. */
function raster(doc: MuPDF.Document, page: number, job: ConvertJob): { pixels: Buffer; width: number; height: number; resolution: number } {
  const p = doc.loadPage(page - 1);
  try {
    const [x0, y0, x1, y1] = p.getBounds();
    const size = rasterSize(x1 - x0, y1 - y0, job.resolution);
    // Scale each axis to the rounded pixel size, so A4 at 150 dpi is exactly 1240 × 1754.
    const matrix = mupdf.Matrix.concat(mupdf.Matrix.translate(-x0, -y0), mupdf.Matrix.scale(size.width / (x1 - x0), size.height / (y1 - y0)));
    const pixmap = p.toPixmap(matrix, mupdf.ColorSpace.DeviceRGB, false, true);
    try {
      const width = pixmap.getWidth();
      const height = pixmap.getHeight();
      if (pixmap.getNumberOfComponents() !== 3 || pixmap.getStride() !== width * 3) throw new Error(`unexpected pixmap layout (${pixmap.getNumberOfComponents()} components, stride ${pixmap.getStride()})`);
      // getPixels() is a view into WASM memory, which the next allocation may move (detaching the
      // view): copy it now, before anything else calls MuPDF.
      const view = pixmap.getPixels();
      const pixels = pixelBuffer(view.byteLength);
      pixels.set(view);
      return { pixels, width, height, resolution: size.resolution };
    } finally {
      pixmap.destroy();
    }
  } finally {
    p.destroy();
  }
}

/** One page drawn and encoded; the next page's pixels may reuse this one's buffer only after the await. */
async function draw(doc: MuPDF.Document, page: number, job: ConvertJob): Promise<PageImage> {
  const { pixels, width, height, resolution } = raster(doc, page, job);
  const data = await encodeRgb(pixels, width, height, job.format, job.quality, resolution);
  return { page, data, width, height, resolution };
}

/** MuPDF's allocator failing (the process's data limit) reads like this; it is the memory ceiling, not the PDF. */
const outOfMemory = /malloc \(\d+ bytes\) failed|out of memory/i;

function failed(err: unknown, prefix: string): ConvertOutcome {
  const message = (err as Error).message ?? String(err);
  return { ok: false, reason: outOfMemory.test(message) ? 'memory' : 'pdf', message: `${prefix}: ${message}` };
}

async function run(job: ConvertJob, progress: (p: ConvertProgress) => void): Promise<ConvertOutcome> {
  let doc: MuPDF.Document;
  try {
    doc = mupdf.Document.openDocument(job.pdf, 'application/pdf');
  } catch (err) {
    return failed(err, 'the PDF cannot be opened');
  }
  try {
    const pageCount = doc.countPages();
    const pages = selectPages(job.pages, pageCount);
    if (job.pages.kind === 'page' && pages.length === 0) {
      return { ok: false, reason: 'page', message: `page ${job.pages.page} does not exist; the document has ${pageCount} page(s)` };
    }
    let total = 0;
    for (const page of pages) {
      const [x0, y0, x1, y1] = pageBox(doc, page);
      if (!(x1 - x0 > 0 && y1 - y0 > 0)) return { ok: false, reason: 'pdf', message: `page ${page} has an empty page box` };
      const size = rasterSize(x1 - x0, y1 - y0, job.resolution);
      total += size.width * size.height;
    }
    if (total > MAX_TOTAL_PIXELS) {
      const mp = (n: number) => `${Math.round(n / 1e6)} megapixels`;
      return { ok: false, reason: 'too-large', message: `${pages.length} page(s) at ${job.resolution} dpi are ${mp(total)}, above the limit of ${mp(MAX_TOTAL_PIXELS)} per conversion; lower the resolution or convert fewer pages` };
    }
    progress({ type: 'plan', pageCount, pages });
    for (const page of pages) progress({ type: 'page', image: await draw(doc, page, job) });
    return { ok: true };
  } catch (err) {
    return failed(err, 'conversion failed');
  } finally {
    doc.destroy();
  }
}

function merge(job: MergeJob): MergeOutcome {
  try {
    return { ok: true, ...mergePdfs(mupdf, job.parts) };
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    return { ok: false, reason: outOfMemory.test(message) ? 'memory' : 'pdf', message };
  }
}

/**
 * Two blank A4 pages merged before the process says it is ready, so that a fanout's aggregate
 * does not run MuPDF's merge code for the first time. It buys little: alone, the first
 * 1000-part merge after it took 0.55–0.57 s against 0.58–0.62 s without it (the next ones
 * 0.30–0.34 s); that first merge's cost is mostly WebAssembly memory touched for the first
 * time, which merging more pages ahead only moves onto the cores the parts render on.
 */
function warm(): void {
  const blank = (): Uint8Array => {
    const doc = new mupdf.PDFDocument();
    doc.insertPage(-1, doc.addPage([0, 0, 595, 842], 0, doc.newDictionary(), ''));
    const pdf = doc.saveToBuffer('compress').asUint8Array().slice();
    doc.destroy();
    return pdf;
  };
  const outcome = merge({ kind: 'merge', parts: [{ pdf: blank(), title: 'warm 1' }, { pdf: blank(), title: 'warm 2' }] });
  if (!outcome.ok) process.stderr.write(`warming up failed: ${outcome.message}\n`);
}

warm();
serveJobs<MupdfJob, ConvertOutcome | MergeOutcome, ConvertProgress>((job, progress) => (job.kind === 'merge' ? merge(job) : run(job, progress)));
