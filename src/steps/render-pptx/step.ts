import { readFile } from 'node:fs/promises';
import { lookupRepositoryFile, readRepositoryBlob } from '../../repository/lookup.js';
import type { Context } from '../../context.js';
import { ticketErrorCodes } from '../../errors.js';
import { retentionDefaults, retentionPlan } from '../../tickets/retention/index.js';
import { JobLog } from '../render-pdf/job-log.js';
import { repositoryView } from '../render-pdf/job-view.js';
import { StepFailure, type Step, type StepInput, type StepOutcome } from '../../tickets/step.js';
import { ArtifactWriter, transformedInput, unexpectedFailure } from '../step-support.js';
import { masterPathOf, outputNameOf, targets } from '../targets.js';
import type { Transformer } from '../../engines/xslt/index.js';
import { builtinMasterPath } from '../../engines/pptx/builtin.js';
import { PptxError } from '../../engines/pptx/errors.js';
import type { PptxOptions } from '../../engines/pptx/mapping.js';
import { renderPptx } from '../../engines/pptx/render.js';

const target = targets.pptx;
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

/**
 * The `renderpptx` step: optional XSLT, then slides from the master deck
 * (`powerpoint/<name>.pptx`, project → tenant → global → built-in), filled from the data.
 * errorCodes: 400 input, 404 master or stylesheet missing, 422 master/data/template error,
 * 500 internal, 504 `maxExecutionMillis` exceeded (the render is stopped).
 */
export function renderPptxStep(deps: { transformer: Transformer }): Step {
  return {
    name: target.step,
    async run(input: StepInput): Promise<StepOutcome> {
      const { ctx, ticket, params, config: configs } = input;
      const config = await configs.of(target.step);
      const keep = await retentionPlan(ctx, ticket.tenant, ticket.project, config, retentionDefaults[target.step]);
      const pptxLog = config.pptxLog ?? 'enableLogOnError';
      const log = new JobLog(ctx.now);
      const stored = new ArtifactWriter(ctx, ticket);
      let content: Buffer | null = null;
      const started = performance.now();
      try {
        log.info(`ticket ${ticket.id} tenant ${ticket.tenant} project ${ticket.project} attempt ${ticket.attempt}`);
        const job = await transformedInput(input, deps.transformer, log);
        const { data, dataType } = job;
        if (dataType !== 'xml') throw new StepFailure(ticketErrorCodes.input, 'renderpptx needs XML in the presentation format; add a transform for JSON input');
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
        const limit = config.maxExecutionMillis ?? DEFAULT_MAX_EXECUTION_MS;
        const signal = AbortSignal.timeout(limit);
        const out = await renderPptx({ master: master.data, data, resources, options, signal, log: (level, message) => log[level](message) }).catch((err: unknown) => {
          if (signal.aborted) {
            log.fatal(`maxExecutionMillis (${limit} ms) exceeded; the render was stopped`);
            throw new StepFailure(ticketErrorCodes.timeout, `render stopped after maxExecutionMillis (${limit} ms)`);
          }
          if (err instanceof PptxError) throw new StepFailure(ticketErrorCodes.unprocessable, `${err.kind}: ${err.message}`);
          throw err;
        });
        const msecs = Math.round(performance.now() - started);
        log.info(`rendered ${out.slides} slide(s), ${out.pptx.length} bytes in ${msecs} ms`);
        const outputName = outputNameOf(target, ticket.id);
        if (keep.output.onSuccess) await stored.put(outputName, 'output', out.pptx, target.mediaType, keep.output);
        if (keep.log.onSuccess) {
          await stored.put(`${ticket.id}.content.xml`, 'content', content, 'application/xml', keep.log);
          if (pptxLog === 'on') await stored.put(`${ticket.id}.pptx.log`, 'log', log.toBuffer(), 'text/plain; charset=utf-8', keep.log);
        }
        return { kind: 'succeeded', artifacts: stored.rows, outputName, outputBytes: out.pptx, msecs, pages: out.slides };
      } catch (err) {
        const failure = unexpectedFailure(ctx, ticket, err, 'internal error while rendering the presentation');
        if (!(err instanceof StepFailure && failure.code === ticketErrorCodes.timeout)) log.fatal(failure.message);
        if (keep.log.onError) {
          if (content) await stored.put(`${ticket.id}.content.xml`, 'content', content, 'application/xml', keep.log);
          if (pptxLog !== 'off') await stored.put(`${ticket.id}.pptx.log`, 'log', log.toBuffer(), 'text/plain; charset=utf-8', keep.log);
        }
        return { kind: 'failed', errorCode: failure.code, errorMessage: failure.message, artifacts: stored.rows, msecs: Math.round(performance.now() - started) };
      }
    },
  };
}

async function loadMaster(ctx: Context, tenant: string, project: string, name: string): Promise<{ data: Buffer; source: string }> {
  const ref = await lookupRepositoryFile(ctx, tenant, project, masterPathOf(target, name));
  if (ref) return { data: await readRepositoryBlob(ctx, ref), source: ref.path };
  if (name === 'default') return { data: await readFile(builtinMasterPath()), source: 'built-in' };
  throw new StepFailure(ticketErrorCodes.notFound, `master ${name} not found in ${target.masters.folder}/`);
}
