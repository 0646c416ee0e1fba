import type { ImageFormat, PageSelection } from './options.js';

/** Largest raster of one page; a page that would be larger is drawn at a lower resolution. */
export const MAX_PAGE_PIXELS = 40_000_000;
/** Largest raster of one conversion, all pages together; a larger pageset fails before drawing. */
export const MAX_TOTAL_PIXELS = 2_000_000_000;

/** One conversion, as sent to a convert worker. */
export interface ConvertJob {
  id: number;
  pdf: Uint8Array;
  format: ImageFormat;
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

/**
 * Worker → pool messages: `plan` first (the document's page count and the pages to draw),
 * then one `page` per page in order, then `done`; or `failed` at any point.
 */
export type ConvertReply =
  | { id: number; type: 'plan'; pageCount: number; pages: number[] }
  | { id: number; type: 'page'; image: PageImage }
  | { id: number; type: 'done'; heapBytes: number }
  | { id: number; type: 'failed'; reason: 'page' | 'too-large' | 'pdf'; message: string };
