import { NodeCompiler, type NodeError } from '@myriaddreamin/typst-ts-node-compiler';
import { serveJobs } from '../pool/index.js';
import { JOB_ROOT, type RenderJob, type RenderResult } from './protocol.js';

// A render process: one Typst compiler per font set, reused across jobs. Each job sees only
// its own files (the shadow map is reset), under a root that does not exist on disk.
const compilers = new Map<string, NodeCompiler>();
let jobsSinceEvict = 0;

function compilerFor(job: RenderJob): NodeCompiler {
  const key = job.fonts?.key ?? '';
  let compiler = compilers.get(key);
  if (!compiler) {
    if (compilers.size >= 4) {
      const oldest = compilers.keys().next().value!;
      compilers.delete(oldest);
    }
    compiler = NodeCompiler.create({ workspace: JOB_ROOT, ...(job.fonts?.blobs.length ? { fontArgs: [{ fontBlobs: job.fonts.blobs }] } : {}) });
    compilers.set(key, compiler);
  }
  return compiler;
}

interface Diagnostic {
  message: string;
  path?: string;
  range?: { start?: { line: number; character: number } } | string | null;
}

/** Diagnostics as `file:line:column: message`; fetchDiagnostics has positions, shortDiagnostics not. */
function describe(compiler: NodeCompiler, err: NodeError | null | undefined): string[] {
  if (!err) return [];
  let list: Diagnostic[];
  try {
    list = compiler.fetchDiagnostics(err) as Diagnostic[];
  } catch {
    try {
      list = err.shortDiagnostics as Diagnostic[];
    } catch {
      return [String(err)];
    }
  }
  return list.map((d) => {
    const start = typeof d.range === 'object' && d.range?.start ? `:${d.range.start.line + 1}:${d.range.start.character + 1}` : '';
    const where = d.path ? `${d.path.replace(JOB_ROOT, '')}${start}: ` : '';
    return `${where}${d.message}`;
  });
}

function render(job: RenderJob): RenderResult {
  const started = performance.now();
  const compiler = compilerFor(job);
  compiler.resetShadow();
  for (const [path, data] of job.files) compiler.mapShadow(path, data);
  const result = compiler.compile({ mainFilePath: job.main, inputs: job.inputs });
  const error = result.takeError();
  const doc = result.result;
  if (error || !doc) {
    const diagnostics = describe(compiler, error);
    return { ok: false, message: diagnostics[0] ?? 'template failed', diagnostics };
  }
  const warnings = describe(compiler, result.takeWarnings());
  const pdf = compiler.pdf(doc, { pdfTags: job.pdfTags, ...(job.pdfStandard ? { pdfStandard: job.pdfStandard } : {}) });
  if (++jobsSinceEvict >= 10) {
    compiler.evictCache(5);
    jobsSinceEvict = 0;
  }
  return { ok: true, pdf, pages: doc.numOfPages, warnings, msecs: performance.now() - started };
}

serveJobs<RenderJob, RenderResult>((job) => {
  try {
    return render(job);
  } catch (err) {
    return { ok: false, message: (err as Error).message ?? String(err), diagnostics: [] };
  }
});
