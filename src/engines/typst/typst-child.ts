import { NodeCompiler, type NodeError, type NodeTypstDocument } from '@myriaddreamin/typst-ts-node-compiler';
import { serveJobs } from '../pool/index.js';
import { JOB_ROOT, type DiagnosticDetail, type RenderResult, type WireFile, type WireJob } from './protocol.js';
import { mapJobFiles } from './shadow-files.js';
import { splitSvgPages } from './svg-pages.js';

// A render process: one Typst compiler per font set, reused across jobs. Each job sees only
// its own files (mapJobFiles), under a root that does not exist on disk.
const compilers = new Map<string, NodeCompiler>();
/** The bytes of each compiler's own fonts, which Typst holds a copy of beside the kept files. */
const fontBytes = new Map<string, number>();
/** The compiler of the job just answered, whose cache is trimmed after the answer. */
let lastCompiler: NodeCompiler | undefined;
/** Files kept between jobs by sha256, as the parent says (see ResidentFiles). */
const kept = new Map<string, Buffer>();

/** A job's files with their bytes, or the hash of one this process was told to keep but lacks. */
function resolve(files: WireFile[]): { files: [string, Buffer][] } | { missing: string } {
  const out: [string, Buffer][] = [];
  for (const f of files) {
    if ('data' in f) {
      // The bytes arrive as a view into the whole job message; a kept file gets its own copy,
      // or it would hold the message (with the job's data file) for as long as it is kept.
      const data = f.sha256 ? Buffer.from(f.data) : Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength);
      if (f.sha256) kept.set(f.sha256, data);
      out.push([f.path, data]);
    } else {
      const data = kept.get(f.sha256);
      if (!data) return { missing: f.sha256 };
      out.push([f.path, data]);
    }
  }
  return { files: out };
}

function compilerFor(key: string, fonts: Buffer[]): NodeCompiler {
  let compiler = compilers.get(key);
  if (!compiler) {
    if (compilers.size >= 4) {
      const oldest = compilers.keys().next().value!;
      compilers.delete(oldest);
      fontBytes.delete(oldest);
    }
    compiler = NodeCompiler.create({ workspace: JOB_ROOT, ...(fonts.length ? { fontArgs: [{ fontBlobs: fonts }] } : {}) });
    compilers.set(key, compiler);
    fontBytes.set(key, fonts.reduce((sum, font) => sum + font.byteLength, 0));
  }
  return compiler;
}

interface Diagnostic {
  message: string;
  path?: string;
  range?: { start?: { line: number; character: number } } | string | null;
  /** LSP severity: 1 error, 2 warning, 3 information, 4 hint (Typst's traces). */
  severity?: number;
}

function fetchList(compiler: NodeCompiler, err: NodeError | null | undefined): Diagnostic[] | string[] {
  if (!err) return [];
  try {
    return compiler.fetchDiagnostics(err) as Diagnostic[];
  } catch {
    try {
      return err.shortDiagnostics as Diagnostic[];
    } catch {
      return [String(err)];
    }
  }
}

/** Diagnostics as `file:line:column: message`; fetchDiagnostics has positions, shortDiagnostics not. */
function describe(list: Diagnostic[] | string[]): string[] {
  return list.map((d) => {
    if (typeof d === 'string') return d;
    const start = typeof d.range === 'object' && d.range?.start ? `:${d.range.start.line + 1}:${d.range.start.character + 1}` : '';
    const where = d.path ? `${d.path.replace(JOB_ROOT, '')}${start}: ` : '';
    return `${where}${d.message}`;
  });
}

/** Previews: the diagnostics with a place, 1-based (columns count UTF-16 units, as editors do). */
function details(list: Diagnostic[] | string[]): DiagnosticDetail[] {
  return list.flatMap((d) => {
    if (typeof d === 'string' || !d.path || typeof d.range !== 'object' || !d.range?.start) return [];
    const { line, character } = d.range.start;
    return [{ file: d.path.replace(JOB_ROOT, ''), line: line + 1, column: character + 1, message: d.message, severity: d.severity === 1 ? 'error' : 'warning' } as const];
  });
}

/** Preview output: pages as SVG (or the PDF) with each page's text. */
function preview(compiler: NodeCompiler, doc: NodeTypstDocument, job: WireJob, warnings: DiagnosticDetail[]) {
  const pages = splitSvgPages(compiler.svg(doc));
  return { pages: job.output === 'svg' ? pages : pages.map(({ width, height, text }) => ({ width, height, text })), warnings };
}

function render(job: WireJob): RenderResult {
  const started = performance.now();
  for (const hash of job.drop) kept.delete(hash);
  const files = resolve(job.files);
  const fonts = resolve(job.fonts?.files ?? []);
  if ('missing' in files || 'missing' in fonts) return { ok: false, message: 'a kept file is missing from the render process', diagnostics: [], missing: true };
  const compiler = compilerFor(job.fonts?.key ?? '', fonts.files.map(([, data]) => data));
  lastCompiler = compiler;
  mapJobFiles(compiler, files.files);
  const result = compiler.compile({ mainFilePath: job.main, inputs: job.inputs });
  const error = result.takeError();
  const doc = result.result;
  if (error || !doc) {
    const list = fetchList(compiler, error);
    const diagnostics = describe(list);
    return { ok: false, message: diagnostics[0] ?? 'template failed', diagnostics, ...(job.output && job.output !== 'pdf' ? { details: details(list) } : {}) };
  }
  const warningList = fetchList(compiler, result.takeWarnings());
  const warnings = describe(warningList);
  const previewed = job.output && job.output !== 'pdf' ? preview(compiler, doc, job, details(warningList)) : undefined;
  const pdf = job.output === 'svg' ? Buffer.alloc(0) : compiler.pdf(doc, { pdfTags: job.pdfTags, ...(job.pdfStandard ? { pdfStandard: job.pdfStandard } : {}) });
  return { ok: true, pdf, pages: doc.numOfPages, warnings, msecs: performance.now() - started, ...(previewed ? { preview: previewed } : {}) };
}

/**
 * The job's compile result and document are small JavaScript objects in front of Typst's
 * native memory, which V8 cannot see: it collected them only when its own heap asked for it,
 * after most had been promoted, and their native memory piled up meanwhile. A young-generation
 * collection after each job (the process runs with `--expose-gc`) frees them while they are
 * still young. On the bench page (600 sheets, 2 cores): 38–42 MiB PSS per render process
 * instead of 130–183, the whole tree's peak 212–215 MiB instead of 401–440, render CPU per
 * sheet unchanged; synchronous renders one at a time p99 16.5–21.1 ms instead of 20.5–28.2.
 *
 * What outlives that collection is promoted (in a loop of bench sheets outside the service,
 * the jobs' ArrayBuffers grew by 1.3 MiB per 1000 jobs until a full collection freed them),
 * and the old generation, a few MiB of JavaScript, is seldom full enough for V8 to collect it:
 * over the 20 000-sheet soak the processes still grew to about 160 MiB each, in steps. A full
 * collection every {@link FULL_COLLECTION_EVERY} jobs (~4 ms, ~7.5 ms CPU on a 4 MiB heap
 * here: 0.015 ms a job) kept the soak's whole tree at 203–222 MiB from start to end (render
 * processes ~40 MiB PSS each), against 477–485 MiB at its end before. No test in `npm test`
 * can tell the two apart in its time (1100 jobs with 64 KiB of data each did not grow either
 * way); the soak (`npm run bench -- soak`) is the check.
 */
const FULL_COLLECTION_EVERY = 500;
let jobsSinceFullCollection = 0;

function freeJobObjects(): void {
  const full = ++jobsSinceFullCollection >= FULL_COLLECTION_EVERY;
  if (full) jobsSinceFullCollection = 0;
  // Not `{ type: 'major' }`: with it the soak's tree still crept, to 307 MiB, and in the loop
  // of sheets named above the ArrayBuffers kept growing; the default forced collection frees them.
  if (full) globalThis.gc?.();
  else globalThis.gc?.({ type: 'minor' });
}

serveJobs<WireJob, RenderResult>(
  (job) => {
    try {
      return render(job);
    } catch (err) {
      return { ok: false, message: (err as Error).message ?? String(err), diagnostics: [] };
    }
  },
  {
    // What the process holds on purpose: the pool recycles it when what it holds beyond that rises.
    keeps: () => {
      let bytes = 0;
      for (const data of kept.values()) bytes += data.byteLength;
      for (const size of fontBytes.values()) bytes += size;
      return bytes;
    },
    // A job taken back before it started still says what to keep and what to forget: the parent
    // counted on it (ResidentFiles).
    onSkipped: (job) => {
      for (const hash of job.drop) kept.delete(hash);
      resolve(job.files);
      resolve(job.fonts?.files ?? []);
    },
    // Typst's memoised results are kept only while the next job still uses them: on the bench
    // page, after 800 jobs a process held 223 MiB RSS against 366 MiB when a fifth of the cache
    // went every 10 jobs, with no slower compiles (8.6 against 10.9 ms per job, same run). The
    // trim (~0.6 ms on the bench page) runs after the answer is sent, off the job's latency.
    afterEach: () => {
      lastCompiler?.evictCache(1);
      lastCompiler = undefined;
      freeJobObjects();
    },
  },
);
