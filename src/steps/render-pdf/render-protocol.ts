/** Messages between the render pool and its child processes. */
export interface RenderJob {
  id: number;
  /** Absolute paths in the job's virtual root, with contents. */
  files: [string, Buffer][];
  /** Path of the main document among `files`. */
  main: string;
  /** `sys.inputs` for the template (strings only). */
  inputs: Record<string, string>;
  /** PDF standard, e.g. `a-2b` or `ua-1`. */
  pdfStandard?: string;
  /** Write a tagged (accessible) PDF; about 8× larger, so only when asked or required. */
  pdfTags: boolean;
  /** Extra fonts (repository `fonts/`), keyed so a child can reuse a compiler per font set. */
  fonts?: { key: string; blobs: Buffer[] };
}

export type RenderResult =
  | { id: number; ok: true; pdf: Buffer; pages: number; warnings: string[]; msecs: number }
  | { id: number; ok: false; message: string; diagnostics: string[] };

/** Every reply carries the child's resident memory so the pool can recycle a grown process. */
export type RenderReply = RenderResult & { rssBytes: number };

/** The virtual root every job's files live under; it does not exist on disk. */
export const JOB_ROOT = '/pressroom-job';
