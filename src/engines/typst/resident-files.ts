import type { ProcessRef } from '../pool/index.js';
import { ContentHashes } from './content-hashes.js';
import type { JobFile, WireFile } from './protocol.js';

/** Files smaller than this travel with every job: hashing and bookkeeping would cost more than the bytes. */
const MIN_RESIDENT_BYTES = 4096;

/**
 * What the engine has sent each render process, so a template, the helper library, fonts and
 * images that many jobs share cross the pipe once per process instead of with every job (each
 * byte sent is serialised, copied through the pipe and copied again into Typst). The parent
 * decides what a process keeps, least recently used first out, within `maxBytes` per process;
 * the process only follows (`drop`), so both sides always agree.
 */
export class ResidentFiles {
  private readonly perProcess = new WeakMap<ProcessRef, Map<string, number>>();
  /** Remembered for at most an eighth of a process's allowance: the contents jobs bring again and again. */
  private readonly hashes: ContentHashes;

  constructor(private readonly maxBytes: number) {
    this.hashes = new ContentHashes(maxBytes / 8);
  }

  /** The wire form of a job's files for one process, and the hashes that process may forget first. */
  plan(process: ProcessRef, files: readonly JobFile[]): { files: WireFile[]; drop: string[] } {
    let held = this.perProcess.get(process);
    if (!held) this.perProcess.set(process, (held = new Map()));
    const used = new Set<string>();
    const wire = files.map((f): WireFile => {
      if (f.reusable === false || f.data.length < MIN_RESIDENT_BYTES || f.data.length > this.maxBytes / 4) return { path: f.path, data: f.data };
      const sha256 = f.sha256 ?? this.hashes.of(f.data);
      used.add(sha256);
      const size = held.get(sha256);
      held.delete(sha256);
      held.set(sha256, f.data.length);
      return size === undefined ? { path: f.path, data: f.data, sha256 } : { path: f.path, sha256 };
    });
    let bytes = 0;
    for (const size of held.values()) bytes += size;
    const drop: string[] = [];
    for (const [hash, size] of held) {
      if (bytes <= this.maxBytes) break;
      if (used.has(hash)) continue;
      held.delete(hash);
      bytes -= size;
      drop.push(hash);
    }
    return { files: wire, drop };
  }

  /** Forgets what a process holds (it said a file was missing): its next job carries every byte. */
  forget(process: ProcessRef): void {
    this.perProcess.delete(process);
  }
}
