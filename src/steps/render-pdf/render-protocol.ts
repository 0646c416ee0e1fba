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

export type RenderResult =
  | { id: number; ok: true; pdf: Buffer; pages: number; warnings: string[]; msecs: number; preview?: { pages: PreviewPage[]; warnings: DiagnosticDetail[] } }
  | { id: number; ok: false; message: string; diagnostics: string[]; details?: DiagnosticDetail[] };

/** Every reply carries the child's resident memory so the pool can recycle a grown process. */
export type RenderReply = RenderResult & { rssBytes: number };

/** The virtual root every job's files live under; it does not exist on disk. */
export const JOB_ROOT = '/pressroom-job';
