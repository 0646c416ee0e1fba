// MuPDF: PDF pages to PNG or JPEG, in pooled child processes.
export { ConvertError, MupdfEngine, type ConvertResult, type MupdfEngineOptions } from './mupdf-engine.js';
export { MAX_PAGE_PIXELS, MAX_TOTAL_PIXELS, type ConvertJob, type MergePart, type PageImage } from './protocol.js';
export { selectPages, type PageRange, type PageSelection } from './pages.js';
