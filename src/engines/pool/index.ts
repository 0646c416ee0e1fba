// The one process pool every out-of-process engine (Typst, MuPDF, XSLT) runs in.
export { ProcessPool } from './process-pool.js';
export type { FloorRise } from './memory-floor.js';
export type { PoolStats, ProcessPoolOptions, ProcessRef, RunOptions } from './pool-options.js';
export { PoolError, type PoolErrorKind } from './pool-error.js';
export { dataLimitBytes, mib, residentBytes } from './memory.js';
export { HUGE_PAGES_TUNABLE, type NodeCommand } from './spawn-node.js';
export type { ChildMessage, JobMessage } from './protocol.js';
export { serveJobs } from './child.js';
