export { ServiceMetrics, type QueueSnapshot, type SlotSnapshot } from './service-metrics.js';
export { countBlobErrors } from './counted-blob-store.js';
