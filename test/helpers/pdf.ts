// Reading PDFs in tests with MuPDF (WASM): page count, text, text lines with positions,
// images and font names. Every function opens the buffer afresh and frees it again.
import type * as MuPDF from 'mupdf';

let loaded: Promise<typeof MuPDF> | undefined;
const mupdf = () => (loaded ??= import('mupdf'));

interface StextLine {
  text: string;
  bbox: { x: number; y: number; w: number; h: number };
  font: { name: string };
}
interface StextBlock {
  type: 'text' | 'image';
  lines?: StextLine[];
}

async function withDocument<T>(pdf: Uint8Array, use: (doc: MuPDF.Document) => T): Promise<T> {
  const m = await mupdf();
  const doc = m.Document.openDocument(pdf, 'application/pdf');
  try {
    return use(doc);
  } finally {
    doc.destroy();
  }
}

function blocks(doc: MuPDF.Document, page: number, options = ''): StextBlock[] {
  const p = doc.loadPage(page);
  try {
    const stext = p.toStructuredText(options);
    try {
      return (JSON.parse(stext.asJSON()) as { blocks: StextBlock[] }).blocks;
    } finally {
      stext.destroy();
    }
  } finally {
    p.destroy();
  }
}

/** Number of pages. */
export function pdfPageCount(pdf: Uint8Array): Promise<number> {
  return withDocument(pdf, (doc) => doc.countPages());
}

/** The text of every page, one string per page (lines separated by newlines). */
export function pdfText(pdf: Uint8Array): Promise<string[]> {
  return withDocument(pdf, (doc) => {
    const pages: string[] = [];
    for (let i = 0; i < doc.countPages(); i++) {
      const p = doc.loadPage(i);
      const stext = p.toStructuredText('');
      try {
        pages.push(stext.asText());
      } finally {
        stext.destroy();
        p.destroy();
      }
    }
    return pages;
  });
}

/** A line of text on a page: its box in points (origin top left) and its font. */
export interface PdfTextLine {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  font: string;
}

/** The text lines of one page (0-based), in reading order. */
export function pdfTextLines(pdf: Uint8Array, page: number): Promise<PdfTextLine[]> {
  return withDocument(pdf, (doc) =>
    blocks(doc, page).flatMap((b) => (b.lines ?? []).map((l) => ({ text: l.text, ...l.bbox, font: l.font.name }))),
  );
}

/** Number of images drawn on one page (0-based). */
export function pdfImageCount(pdf: Uint8Array, page: number): Promise<number> {
  return withDocument(pdf, (doc) => blocks(doc, page, 'preserve-images').filter((b) => b.type === 'image').length);
}

/** Names of the fonts used for text anywhere in the document, without subset prefixes. */
export function pdfFontNames(pdf: Uint8Array): Promise<string[]> {
  return withDocument(pdf, (doc) => {
    const names = new Set<string>();
    for (let i = 0; i < doc.countPages(); i++) {
      for (const b of blocks(doc, i)) for (const l of b.lines ?? []) names.add(l.font.name.replace(/^[A-Z]{6}\+/, ''));
    }
    return [...names].sort();
  });
}
