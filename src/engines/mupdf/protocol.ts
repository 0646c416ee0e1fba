import type { PageSelection } from './pages.js';

/** Largest raster of one page; a page that would be larger is drawn at a lower resolution. */
export const MAX_PAGE_PIXELS = 40_000_000;
/** Largest raster of one conversion, all pages together; a larger pageset fails before drawing. */
export const MAX_TOTAL_PIXELS = 2_000_000_000;

/** One conversion, as sent to a MuPDF process. */
export interface ConvertJob {
  kind?: 'convert';
  pdf: Uint8Array;
  format: 'png' | 'jpg';
  resolution: number;
  quality: number;
  pages: PageSelection;
}

/** One converted page. `resolution` is lower than asked when the page hit MAX_PAGE_PIXELS. */
export interface PageImage {
  page: number;
  data: Uint8Array;
  width: number;
  height: number;
  resolution: number;
}

/** Progress of a conversion: the plan first (page count, pages to draw), then each page in order. */
export type ConvertProgress = { type: 'plan'; pageCount: number; pages: number[] } | { type: 'page'; image: PageImage };

/** How a conversion ended; `memory` when MuPDF's allocator hit the process's memory limit. */
export type ConvertOutcome = { ok: true } | { ok: false; reason: 'page' | 'too-large' | 'pdf' | 'memory'; message: string };

/** One part of a merge: its PDF and the title of its bookmark. */
export interface MergePart {
  pdf: Uint8Array;
  title: string;
}

/** A merge of PDFs into one, as sent to a MuPDF process. */
export interface MergeJob {
  kind: 'merge';
  parts: MergePart[];
}

/** What a MuPDF process is asked to do. */
export type MupdfJob = ConvertJob | MergeJob;

/** How a merge ended. */
export type MergeOutcome = { ok: true; pdf: Uint8Array; pages: number } | { ok: false; reason: 'pdf' | 'memory'; message: string };
