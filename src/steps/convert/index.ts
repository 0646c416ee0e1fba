export { ConvertError, ConvertPool, type ConvertResult } from './convert-pool.js';
export { convertStep } from './step.js';
export * from './options.js';
export { MAX_PAGE_PIXELS, MAX_TOTAL_PIXELS, type PageImage } from './protocol.js';
