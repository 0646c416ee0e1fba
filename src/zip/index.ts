import type { Settings } from '../config/settings.js';
import { ExpandGate } from './gate.js';
import type { ZipLimits } from './reader.js';

export { readZip, scanZip, type ZipEntry, type ZipLimits, type ZipScan } from './reader.js';
export { ExpandGate } from './gate.js';

/** The ZIP limits the service settings ask for (entries, total bytes, compression ratio). */
export function zipLimits(settings: Settings): ZipLimits {
  return { maxEntries: settings.zipMaxEntries, maxBytes: settings.zipMaxBytes, maxRatio: settings.zipMaxRatio };
}

/** How long an upload waits for a free expansion slot before it is answered 503. */
export const ZIP_QUEUE_WAIT_MS = 10_000;

// One gate per process and settings (a test process runs several servers, each its own).
const gates = new WeakMap<Settings, ExpandGate>();

/** The process's gate on concurrent ZIP expansion at intake (`PRESSROOM_ZIP_CONCURRENCY` slots). */
export function zipGate(settings: Settings): ExpandGate {
  let gate = gates.get(settings);
  if (!gate) gates.set(settings, (gate = new ExpandGate(settings.zipConcurrency, ZIP_QUEUE_WAIT_MS)));
  return gate;
}
