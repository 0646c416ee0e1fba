// A convert worker thread: MuPDF (WASM) draws PDF pages to PNG or JPEG. The work is CPU-bound
// and synchronous, so it runs here rather than on the event loop; the pool terminates a worker
// that runs past its time limit or whose WASM memory has grown too far.
import { parentPort } from 'node:worker_threads';
import type * as MuPDF from 'mupdf';
import { selectPages } from './options.js';
import { MAX_PAGE_PIXELS, MAX_TOTAL_PIXELS, type ConvertJob, type ConvertReply, type PageImage } from './protocol.js';

// Handing MuPDF a module object lets us read the size of its WASM heap after each job.
const wasmModule: { HEAPU8?: Uint8Array } = {};
(globalThis as { $libmupdf_wasm_Module?: unknown }).$libmupdf_wasm_Module = wasmModule;
const mupdf: typeof MuPDF = await import('mupdf');
mupdf.setLog(null);

const port = parentPort!;

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

function draw(doc: MuPDF.Document, page: number, job: ConvertJob): PageImage {
  const p = doc.loadPage(page - 1);
  try {
    const [x0, y0, x1, y1] = p.getBounds();
    const size = rasterSize(x1 - x0, y1 - y0, job.resolution);
    // Scale each axis to the rounded pixel size, so A4 at 150 dpi is exactly 1240 × 1754.
    const matrix = mupdf.Matrix.concat(mupdf.Matrix.translate(-x0, -y0), mupdf.Matrix.scale(size.width / (x1 - x0), size.height / (y1 - y0)));
    const pixmap = p.toPixmap(matrix, mupdf.ColorSpace.DeviceRGB, false, true);
    try {
      pixmap.setResolution(Math.round(size.resolution), Math.round(size.resolution));
      const data = job.format === 'png' ? pixmap.asPNG() : pixmap.asJPEG(job.quality, false);
      return { page, data, width: pixmap.getWidth(), height: pixmap.getHeight(), resolution: size.resolution };
    } finally {
      pixmap.destroy();
    }
  } finally {
    p.destroy();
  }
}

function run(job: ConvertJob): void {
  let doc: MuPDF.Document;
  try {
    doc = mupdf.Document.openDocument(job.pdf, 'application/pdf');
  } catch (err) {
    return reply({ id: job.id, type: 'failed', reason: 'pdf', message: `the PDF cannot be opened: ${(err as Error).message}` });
  }
  try {
    const pageCount = doc.countPages();
    const pages = selectPages(job.pages, pageCount);
    if (job.pages.kind === 'page' && pages.length === 0) {
      return reply({ id: job.id, type: 'failed', reason: 'page', message: `page ${job.pages.page} does not exist; the document has ${pageCount} page(s)` });
    }
    let total = 0;
    for (const page of pages) {
      const [x0, y0, x1, y1] = pageBox(doc, page);
      if (!(x1 - x0 > 0 && y1 - y0 > 0)) return reply({ id: job.id, type: 'failed', reason: 'pdf', message: `page ${page} has an empty page box` });
      const size = rasterSize(x1 - x0, y1 - y0, job.resolution);
      total += size.width * size.height;
    }
    if (total > MAX_TOTAL_PIXELS) {
      const mp = (n: number) => `${Math.round(n / 1e6)} megapixels`;
      return reply({ id: job.id, type: 'failed', reason: 'too-large', message: `${pages.length} page(s) at ${job.resolution} dpi are ${mp(total)}, above the limit of ${mp(MAX_TOTAL_PIXELS)} per conversion; lower the resolution or convert fewer pages` });
    }
    reply({ id: job.id, type: 'plan', pageCount, pages });
    for (const page of pages) {
      const image = draw(doc, page, job);
      port.postMessage({ id: job.id, type: 'page', image } satisfies ConvertReply, [image.data.buffer as ArrayBuffer]);
    }
    reply({ id: job.id, type: 'done', heapBytes: wasmModule.HEAPU8?.length ?? 0 });
  } catch (err) {
    reply({ id: job.id, type: 'failed', reason: 'pdf', message: `conversion failed: ${(err as Error).message}` });
  } finally {
    doc.destroy();
  }
}

function reply(message: ConvertReply): void {
  port.postMessage(message);
}

port.on('message', (job: ConvertJob) => run(job));
port.postMessage('ready');
