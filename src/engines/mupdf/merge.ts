import type * as MuPDF from 'mupdf';
import type { MergePart } from './protocol.js';

/** Concatenates PDFs in order and adds one top-level bookmark per part, at its first page (in a MuPDF process). */
export function mergePdfs(mupdf: typeof MuPDF, parts: readonly MergePart[]): { pdf: Uint8Array; pages: number } {
  const out = new mupdf.PDFDocument();
  const marks: { title: string; page: number }[] = [];
  let pages = 0;
  for (const part of parts) {
    const src = new mupdf.PDFDocument(part.pdf);
    marks.push({ title: part.title, page: pages });
    const n = src.countPages();
    for (let p = 0; p < n; p++) out.graftPage(-1, src, p);
    pages += n;
    src.destroy();
  }
  const outline = out.outlineIterator();
  for (const m of marks) outline.insert({ title: m.title, uri: out.formatLinkURI({ type: 'Fit', chapter: 0, page: m.page, x: 0, y: 0, width: 0, height: 0, zoom: 0 }), open: false });
  const buffer = out.saveToBuffer('compress');
  const pdf = buffer.asUint8Array().slice();
  out.destroy();
  return { pdf, pages };
}
