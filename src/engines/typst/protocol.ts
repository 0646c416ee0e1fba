/** One file of a job: its absolute path in the job's virtual root and its content. */
export interface JobFile {
  path: string;
  data: Buffer;
  /** sha256 (hex) of `data` when already known (repository files); computed otherwise. */
  sha256?: string;
  /** False for content unique to this job (its data file): never kept in a render process. @defaultValue true */
  reusable?: boolean;
}

/** A Typst job as the engine's callers give it. */
export interface RenderJob {
  files: JobFile[];
  /** Path of the main document among `files`. */
  main: string;
  /** `sys.inputs` for the template (strings only). */
  inputs: Record<string, string>;
  /** PDF standard, e.g. `a-2b` or `ua-1`. */
  pdfStandard?: string;
  /** Write a tagged (accessible) PDF; about 8× larger, so only when asked or required. */
  pdfTags: boolean;
  /** Extra fonts (repository `fonts/`), keyed so a process can reuse a compiler per font set. */
  fonts?: { key: string; files: JobFile[] };
  /**
   * Previews (the Studio): `svg` answers each page as SVG with its text instead of a PDF,
   * `pdf+text` the PDF and each page's text; both add positioned diagnostics. @defaultValue pdf
   */
  output?: 'pdf' | 'svg' | 'pdf+text';
}

/** A compiler message with its place in the job's files (line and column 1-based). */
export interface DiagnosticDetail {
  file: string;
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

/** A page of a preview: size in points, its SVG (`svg` output) and its text. */
export interface PreviewPage {
  width: number;
  height: number;
  svg?: string;
  text: string;
}

/**
 * A file as it travels to a render process: with its bytes, or by hash alone when that process
 * already holds them (it keeps files that have a hash until told to `drop` them).
 */
export type WireFile = { path: string; data: Uint8Array; sha256?: string } | { path: string; sha256: string };

/** A job as sent to a render process. */
export interface WireJob extends Omit<RenderJob, 'files' | 'fonts'> {
  files: WireFile[];
  fonts?: { key: string; files: WireFile[] };
  /** Hashes the process may forget, before it reads this job's files. */
  drop: string[];
}

/** What a render process answers: the PDF, or the template's diagnostics. */
export type RenderResult =
  | { ok: true; pdf: Uint8Array; pages: number; warnings: string[]; msecs: number; preview?: { pages: PreviewPage[]; warnings: DiagnosticDetail[] } }
  | { ok: false; message: string; diagnostics: string[]; details?: DiagnosticDetail[]; missing?: true };

/** The virtual root every job's files live under; it does not exist on disk. */
export const JOB_ROOT = '/pressroom-job';
