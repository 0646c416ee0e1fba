// Typst: PDF from a job's files, in pooled child processes.
export { RenderError, TypstEngine, type RenderOutput, type TypstEngineOptions } from './typst-engine.js';
export { JOB_ROOT, type DiagnosticDetail, type JobFile, type PreviewPage, type RenderJob } from './protocol.js';
export { RENDER_PROCESS_TUNABLES } from './render-allocator.js';
