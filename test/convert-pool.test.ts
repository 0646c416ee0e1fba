import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as mupdf from 'mupdf';
import pino from 'pino';
import { jpegWithDensity, pngWithDensity } from '../src/engines/mupdf/density.js';
import { ConvertError, MupdfEngine, type PageImage } from '../src/engines/mupdf/index.js';
import { decodeImage, near } from './helpers/image-pixels.js';
import { imageSize } from './helpers/image-size.js';
import { tinyPng } from './helpers/png.js';

/** A PDF of `pages` empty pages of the given size in points. */
function blankPdf(pages: number, width = 595.28, height = 841.89): Buffer {
  const doc = new mupdf.PDFDocument();
  for (let i = 0; i < pages; i++) doc.insertPage(-1, doc.addPage([0, 0, width, height], 0, {}, ''));
  const out = Buffer.from(doc.saveToBuffer('').asUint8Array());
  doc.destroy();
  return out;
}

/** A one-page PDF whose page takes its size from the page tree above it (MediaBox inherited). */
function inheritedSizePdf(width: number, height: number): Buffer {
  const doc = new mupdf.PDFDocument();
  doc.insertPage(-1, doc.addPage([0, 0, width, height], 0, {}, ''));
  const box = doc.findPage(0).get('MediaBox');
  doc.getTrailer().get('Root').get('Pages').put('MediaBox', box);
  doc.findPage(0).delete('MediaBox');
  const out = Buffer.from(doc.saveToBuffer('').asUint8Array());
  doc.destroy();
  return out;
}

/** A one-page 200 × 100 pt PDF: its left half red, its right half white. */
function halfRedPdf(): Buffer {
  const doc = new mupdf.PDFDocument();
  doc.insertPage(-1, doc.addPage([0, 0, 200, 100], 0, {}, '1 0 0 rg 0 0 100 100 re f'));
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

  it('encodes lossless PNG and JPEG at every quality from 0 to 100, with the resolution in the file', async () => {
    const one = async (format: 'png' | 'jpg', quality: number) => {
      let image: PageImage | undefined;
      await pool.convert({ ...job(halfRedPdf(), { kind: 'page', page: 1 }), format, quality, resolution: 144 }, (img) => (image = img));
      return image!;
    };
    const png = await one('png', 75);
    const decoded = decodeImage(png.data);
    assert.deepEqual([decoded.width, decoded.height, decoded.xdpi, decoded.ydpi], [400, 200, 144, 144]);
    for (let x = 0; x < 400; x += 7) for (const y of [0, 99, 199]) assert.deepEqual(decoded.rgb(x, y), x < 200 ? [255, 0, 0] : [255, 255, 255], `PNG (${x}, ${y})`);

    const sizes: number[] = [];
    for (const quality of [0, 40, 100]) {
      const jpg = await one('jpg', quality);
      const image = decodeImage(jpg.data);
      assert.deepEqual([image.width, image.height, image.xdpi, image.ydpi], [400, 200, 144, 144], `q=${quality}`);
      assert.ok(near(image.rgb(50, 100), [255, 0, 0], quality === 0 ? 40 : 8), `q=${quality}: ${image.rgb(50, 100).join(',')}`);
      assert.ok(near(image.rgb(350, 100), [255, 255, 255], quality === 0 ? 40 : 8), `q=${quality}: ${image.rgb(350, 100).join(',')}`);
      sizes.push(jpg.data.length);
    }
    assert.ok(sizes[0]! < sizes[1]! && sizes[1]! < sizes[2]!, `JPEG bytes grow with quality: ${sizes.join(' < ')}`);
  });

  it('merges PDFs in order, and names an unreadable part once in the error', async () => {
    const merged = await pool.merge([{ pdf: blankPdf(2), title: 'A' }, { pdf: halfRedPdf(), title: 'B' }]);
    assert.equal(merged.pages, 3);
    const doc = mupdf.Document.openDocument(merged.pdf, 'application/pdf');
    assert.deepEqual(doc.loadOutline()?.map((o) => o.title), ['A', 'B']);
    doc.destroy();
    await assert.rejects(pool.merge([{ pdf: blankPdf(1), title: 'A' }, { pdf: Buffer.from('not a pdf'), title: 'B' }]), (err) => {
      assert.ok(err instanceof ConvertError && err.kind === 'pdf', String(err));
      assert.doesNotMatch(err.message, /merging the parts failed/, 'the aggregate step adds that prefix itself');
      return true;
    });
  });

  it('merges hundreds of parts in order, under a page tree of several levels, each bookmark at its part', async () => {
    // Each part's page is as wide as its number, so the merged page order can be read back.
    const parts = Array.from({ length: 300 }, (_, i) => ({ pdf: blankPdf(1, 100 + i, 200), title: `P${i}` }));
    parts.splice(150, 0, { pdf: blankPdf(2, 50, 60), title: 'two pages' }, { pdf: inheritedSizePdf(70, 80), title: 'inherited size' });
    const merged = await pool.merge(parts);
    assert.equal(merged.pages, 303);
    const doc = mupdf.Document.openDocument(merged.pdf, 'application/pdf') as mupdf.PDFDocument;
    try {
      assert.equal(doc.wasRepaired(), false, 'the merged file parses as written');
      const widths = Array.from({ length: doc.countPages() }, (_, i) => Math.round(doc.loadPage(i).getBounds()[2]));
      const expected = [...Array.from({ length: 150 }, (_, i) => 100 + i), 50, 50, 70, ...Array.from({ length: 150 }, (_, i) => 250 + i)];
      assert.deepEqual(widths, expected);
      const outline = doc.loadOutline() ?? [];
      assert.deepEqual(outline.map((o) => o.title), parts.map((p) => p.title));
      const firstPages = [...Array.from({ length: 150 }, (_, i) => i), 150, 152, ...Array.from({ length: 150 }, (_, i) => 153 + i)];
      assert.deepEqual(outline.map((o) => o.page), firstPages);
    } finally {
      doc.destroy();
    }
  });

  it('warms one process ahead of a merge, only when none runs, and merges on it afterwards', async () => {
    const cold = new MupdfEngine({ size: 2, timeoutMs: 30_000, logger: pino({ level: 'silent' }) });
    try {
      assert.equal(cold.stats().started, 0, 'no process before it is asked');
      cold.warm();
      cold.warm();
      const deadline = Date.now() + 30_000;
      while (!(cold.stats().idle === 1 && cold.stats().busy === 0 && cold.stats().queued === 0)) {
        assert.ok(Date.now() < deadline, `warmed process never idle: ${JSON.stringify(cold.stats())}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(cold.stats().started, 1, 'one process, however often it is asked');
      cold.warm();
      const merged = await cold.merge([{ pdf: blankPdf(1), title: 'A' }, { pdf: halfRedPdf(), title: 'B' }]);
      assert.equal(merged.pages, 2);
      assert.equal(cold.stats().started, 1, 'the merge ran on the warmed process; warming again while it runs started none');
    } finally {
      await cold.close();
    }
  });

  it('merges on the process being warmed when the merge comes while it still starts, starting no second one', async () => {
    const cold = new MupdfEngine({ size: 2, timeoutMs: 30_000, logger: pino({ level: 'silent' }) });
    try {
      cold.warm();
      assert.equal(cold.stats().starting, 1, 'warming starts a process');
      const merged = await cold.merge([{ pdf: blankPdf(1), title: 'A' }, { pdf: halfRedPdf(), title: 'B' }]);
      assert.equal(merged.pages, 2);
      assert.equal(cold.stats().started, 1, 'the merge waited for the process already starting');
    } finally {
      await cold.close();
    }
  });

  it('stops a conversion that runs past its time limit and keeps working afterwards', async () => {
    await assert.rejects(pool.convert({ ...job(blankPdf(1), { kind: 'page', page: 1 }), resolution: 600 }, () => {}, 1), (err) => err instanceof ConvertError && err.kind === 'timeout');
    let image: PageImage | undefined;
    await pool.convert(job(blankPdf(1), { kind: 'page', page: 1 }), (img) => (image = img));
    assert.deepEqual(imageSize(image!.data), { width: 595, height: 842 });
  });
});

describe('image resolution', () => {
  it('sets the pHYs chunk of a PNG, adding one where there is none', () => {
    const png = tinyPng(4, 3);
    const with300 = pngWithDensity(Buffer.from(png), 300);
    assert.equal(with300.length, png.length + 21);
    assert.deepEqual([decodeImage(with300).xdpi, decodeImage(with300).ydpi], [300, 300]);
    const with96 = pngWithDensity(Buffer.from(with300), 96);
    assert.equal(with96.length, with300.length, 'rewritten in place');
    assert.deepEqual([decodeImage(with96).xdpi, decodeImage(with96).ydpi], [96, 96]);
    assert.deepEqual(decodeImage(with96).rgb(3, 2), decodeImage(png).rgb(3, 2));
  });

  it('sets the JFIF density of a JPEG, adding a JFIF header where there is none', () => {
    const pixmap = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, [0, 0, 8, 8], false);
    pixmap.clear(200);
    pixmap.setResolution(72, 72);
    const jfif = Buffer.from(pixmap.asJPEG(90, false));
    pixmap.destroy();
    const rewritten = jpegWithDensity(Buffer.from(jfif), 200);
    assert.equal(rewritten.length, jfif.length, 'rewritten in place');
    assert.deepEqual([decodeImage(rewritten).xdpi, decodeImage(rewritten).ydpi], [200, 200]);
    // The same file without its JFIF segment (SOI, then what follows APP0).
    const bare = Buffer.concat([jfif.subarray(0, 2), jfif.subarray(4 + jfif.readUInt16BE(4))]);
    const added = jpegWithDensity(bare, 150);
    assert.equal(added.length, bare.length + 18);
    assert.deepEqual([decodeImage(added).xdpi, decodeImage(added).ydpi, decodeImage(added).width], [150, 150, 8]);
  });
});
