import { readFile } from 'node:fs/promises';
import { lookupRepositoryFile, readRepositoryBlob, resolveStepConfig } from '../../config/resolve.js';
import type { Context } from '../../context.js';
import type { ArtifactRow } from '../../store/index.js';
import { retentionDefaults, retentionPlan } from '../../tickets/retention/index.js';
import { InputMissingError, loadTicketInput } from '../input.js';
import { JobLog } from '../render-pdf/job-log.js';
import { repositoryView } from '../render-pdf/job-view.js';
import type { Step, StepInput, StepOutcome } from '../step.js';
import { TransformError, type Transformer } from '../transform/index.js';
import { builtinMasterPath } from './builtin.js';
import { PptxError } from './errors.js';
import type { PptxOptions } from './mapping.js';
import { renderPptx } from './render.js';

const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const DEFAULT_MAX_EXECUTION_MS = 3_600_000;
const optionNames: (keyof PptxOptions)[] = [
  'mapPlaceholdersByName',
  'mapPlaceholdersByType',
  'mapShapesByName',
  'allowMultiplePlaceholderPerName',
  'allowMultiplePlaceholderPerType',
  'allowMultipleShapesPerName',
  'insertNewSlidesAfter',
  'keepExistingSlides',
  'preferredView',
];

class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The `renderpptx` step: optional XSLT, then slides from the master deck
 * (`powerpoint/<name>.pptx`, project → tenant → global → built-in), filled from the data.
 * errorCodes: 400 input, 404 master or stylesheet missing, 422 master/data/template error,
 * 500 internal, 504 `maxExecutionMillis` exceeded (the render is stopped).
 */
export function renderPptxStep(deps: { transformer: Transformer }): Step {
  return {
    name: 'renderpptx',
    async run({ ctx, ticket, params }: StepInput): Promise<StepOutcome> {
      const config = await resolveStepConfig(ctx, 'renderpptx', ticket.tenant, ticket.project);
      const keep = await retentionPlan(ctx, ticket.tenant, ticket.project, config, retentionDefaults.renderpptx);
      const pptxLog = (config.pptxLog as 'on' | 'off' | 'enableLogOnError' | undefined) ?? 'enableLogOnError';
      const log = new JobLog(ctx.now);
      const artifacts: ArtifactRow[] = [];
      const base = `jobs/${ticket.tenant}/${ticket.project}/${ticket.id}/a${ticket.attempt}`;
      const store = async (name: string, kind: string, data: Buffer, contentType: string, rule: { until: number | null; rule: string }) => {
        const key = `${base}/${name}`;
        await ctx.blobs.put(key, data);
        artifacts.push({ ticket: ticket.id, name, kind, blob_key: key, size: data.length, content_type: contentType, keep_until: rule.until, keep_rule: rule.rule, created: ctx.now() });
      };
      let content: Buffer | null = null;
      const started = performance.now();
      try {
        log.info(`ticket ${ticket.id} tenant ${ticket.tenant} project ${ticket.project} attempt ${ticket.attempt}`);
        const job = await loadTicketInput(ctx, ticket, params).catch((err: unknown) => {
          throw err instanceof InputMissingError ? new StepFailure('400', err.message) : err;
        });
        let data = job.data;
        let dataType = job.dataType;
        for (const name of [params.transformBefore, params.transform]) {
          if (!name) continue;
          data = await transform(ctx, deps.transformer, ticket.tenant, ticket.project, name, data, dataType, { ...params.custom, ticket: ticket.id });
          dataType = 'xml';
          log.info(`transform ${name}: ${data.length} bytes of XML`);
        }
        if (dataType !== 'xml') throw new StepFailure('400', 'renderpptx needs XML in the presentation format; add a transform for JSON input');
        content = data;
        const master = await loadMaster(ctx, ticket.tenant, ticket.project, params.documentTemplate);
        log.info(`master ${params.documentTemplate} (${master.source})`);
        const resources = new Map<string, Buffer>();
        for (const [path, row] of await repositoryView(ctx, ticket.tenant, ticket.project)) {
          if (path.startsWith('/images/')) resources.set(path.slice(1), await readRepositoryBlob(ctx, row));
        }
        for (const r of job.resources) resources.set(r.name, r.data);
        const options: PptxOptions = {};
        for (const k of optionNames) if (config[k] !== undefined) (options as Record<string, unknown>)[k] = config[k];
        const limit = (config.maxExecutionMillis as number | undefined) ?? DEFAULT_MAX_EXECUTION_MS;
        const signal = AbortSignal.timeout(limit);
        const out = await renderPptx({ master: master.data, data, resources, options, signal, log: (level, message) => log[level](message) }).catch((err: unknown) => {
          if (signal.aborted) {
            log.fatal(`maxExecutionMillis (${limit} ms) exceeded; the render was stopped`);
            throw new StepFailure('504', `render stopped after maxExecutionMillis (${limit} ms)`);
          }
          if (err instanceof PptxError) throw new StepFailure('422', `${err.kind}: ${err.message}`);
          throw err;
        });
        const msecs = Math.round(performance.now() - started);
        log.info(`rendered ${out.slides} slide(s), ${out.pptx.length} bytes in ${msecs} ms`);
        const outputName = `${ticket.id}.pptx`;
        if (keep.output.onSuccess) await store(outputName, 'output', out.pptx, PPTX, keep.output);
        if (keep.log.onSuccess) {
          await store(`${ticket.id}.content.xml`, 'content', content, 'application/xml', keep.log);
          if (pptxLog === 'on') await store(`${ticket.id}.pptx.log`, 'log', log.toBuffer(), 'text/plain; charset=utf-8', keep.log);
        }
        return { kind: 'succeeded', artifacts, outputName, msecs, pages: out.slides };
      } catch (err) {
        const failure = err instanceof StepFailure ? err : new StepFailure('500', 'internal error while rendering the presentation');
        if (!(err instanceof StepFailure)) ctx.logger.error({ err, ticket: ticket.id }, 'renderpptx failed unexpectedly');
        if (!(err instanceof StepFailure && failure.code === '504')) log.fatal(failure.message);
        if (keep.log.onError) {
          if (content) await store(`${ticket.id}.content.xml`, 'content', content, 'application/xml', keep.log);
          if (pptxLog !== 'off') await store(`${ticket.id}.pptx.log`, 'log', log.toBuffer(), 'text/plain; charset=utf-8', keep.log);
        }
        return { kind: 'failed', errorCode: failure.code, errorMessage: failure.message, artifacts, msecs: Math.round(performance.now() - started) };
      }
    },
  };
}

async function transform(
  ctx: Context,
  transformer: Transformer,
  tenant: string,
  project: string,
  name: string,
  input: Buffer,
  inputType: 'xml' | 'json',
  params: Record<string, string>,
): Promise<Buffer> {
  const ref = await lookupRepositoryFile(ctx, tenant, project, `transform/xslt/${name}`);
  if (!ref) throw new StepFailure('404', `stylesheet ${name} not found in transform/xslt/`);
  try {
    return await transformer.transform({ stylesheet: await readRepositoryBlob(ctx, ref), stylesheetName: name, input, inputType, params: { ...params, tenant, project } });
  } catch (err) {
    if (err instanceof TransformError) throw new StepFailure(err.code === 'timeout' ? '504' : '422', `transform ${name}: ${err.message}`);
    throw err;
  }
}

async function loadMaster(ctx: Context, tenant: string, project: string, name: string): Promise<{ data: Buffer; source: string }> {
  const ref = await lookupRepositoryFile(ctx, tenant, project, `powerpoint/${name}.pptx`);
  if (ref) return { data: await readRepositoryBlob(ctx, ref), source: ref.path };
  if (name === 'default') return { data: await readFile(builtinMasterPath()), source: 'built-in' };
  throw new StepFailure('404', `master ${name} not found in powerpoint/`);
}
