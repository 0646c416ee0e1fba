import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as mupdf from 'mupdf';
import pino from 'pino';
import { ConvertError, MupdfEngine, type PageImage } from '../src/engines/mupdf/index.js';
import { imageSize } from './helpers/image-size.js';

/** A PDF of `pages` empty pages of the given size in points. */
function blankPdf(pages: number, width = 595.28, height = 841.89): Buffer {
  const doc = new mupdf.PDFDocument();
  for (let i = 0; i < pages; i++) doc.insertPage(-1, doc.addPage([0, 0, width, height], 0, {}, ''));
  const out = Buffer.from(doc.saveToBuffer('').asUint8Array());
  doc.destroy();
  return out;
}

describe('convert pool', () => {
  const pool = new MupdfEngine({ size: 1, timeoutMs: 30_000, logger: pino({ level: 'silent' }) });
  after(() => pool.close());
  const job = (pdf: Buffer, pages: { kind: 'page'; page: number } | { kind: 'pageset'; ranges: { from: number | null; to: number | null }[] }) =>
    ({ pdf, format: 'png', resolution: 72, quality: 75, pages }) as const;

  it('hands over pages in order with their pixel size', async () => {
    const images: PageImage[] = [];
    const result = await pool.convert(job(blankPdf(3), { kind: 'pageset', ranges: [{ from: 2, to: null }] }), (img) => images.push(img));
    assert.deepEqual(result, { pageCount: 3, pages: [2, 3] });
    assert.deepEqual(images.map((i) => i.page), [2, 3]);
    assert.deepEqual(imageSize(images[0]!.data), { width: 595, height: 842 });
  });

  it('fails a missing page, an unreadable PDF and an oversized pageset with their own kinds', async () => {
    const kind = (err: unknown) => (err instanceof ConvertError ? err.kind : String(err));
    await assert.rejects(pool.convert(job(blankPdf(1), { kind: 'page', page: 2 }), () => {}), (err) => kind(err) === 'page');
    await assert.rejects(pool.convert(job(Buffer.from('not a pdf'), { kind: 'page', page: 1 }), () => {}), (err) => kind(err) === 'pdf');
    // 60 pages of 100 × 100 inches: far beyond the per-conversion raster budget even when each page is lowered.
    const posters = blankPdf(60, 7200, 7200);
    await assert.rejects(pool.convert({ ...job(posters, { kind: 'pageset', ranges: [{ from: 1, to: null }] }), resolution: 600 }, () => {}), (err) => kind(err) === 'too-large');
  });

  it('stops a conversion that runs past its time limit and keeps working afterwards', async () => {
    await assert.rejects(pool.convert({ ...job(blankPdf(1), { kind: 'page', page: 1 }), resolution: 600 }, () => {}, 1), (err) => err instanceof ConvertError && err.kind === 'timeout');
    let image: PageImage | undefined;
    await pool.convert(job(blankPdf(1), { kind: 'page', page: 1 }), (img) => (image = img));
    assert.deepEqual(imageSize(image!.data), { width: 595, height: 842 });
  });
});
