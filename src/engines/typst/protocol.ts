/** A Typst job as sent to a render process. */
export interface RenderJob {
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
  /** Extra fonts (repository `fonts/`), keyed so a process can reuse a compiler per font set. */
  fonts?: { key: string; blobs: Buffer[] };
}

/** What a render process answers: the PDF, or the template's diagnostics. */
export type RenderResult =
  | { ok: true; pdf: Uint8Array; pages: number; warnings: string[]; msecs: number }
  | { ok: false; message: string; diagnostics: string[] };

/** The virtual root every job's files live under; it does not exist on disk. */
export const JOB_ROOT = '/pressroom-job';
