import type { Settings } from '../config/settings.js';
import type { ZipLimits } from './reader.js';

export { readZip, type ZipEntry, type ZipLimits } from './reader.js';

/** The ZIP limits the service settings ask for (entries, total bytes; default ratio rule). */
export function zipLimits(settings: Settings): ZipLimits {
  return { maxEntries: settings.zipMaxEntries, maxBytes: settings.zipMaxBytes };
}
