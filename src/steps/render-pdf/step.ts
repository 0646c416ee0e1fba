import { downloadCounters, type MediaAssets } from '../../assets/index.js';
import type { Context } from '../../context.js';
import { ticketErrorCodes } from '../../errors.js';
import { recordUsage } from '../../stats/index.js';
import { retentionDefaults, retentionPlan } from '../../tickets/retention/index.js';
import { StepFailure, type Step, type StepInput, type StepOutcome } from '../../tickets/step.js';
import { ArtifactWriter, transformedInput, unexpectedFailure } from '../step-support.js';
import { masterPathOf, outputNameOf, targets } from '../targets.js';
import type { Transformer } from '../../engines/xslt/index.js';
import { readBuiltinTemplate } from '../../repository/builtin-templates.js';
import { JobLog } from './job-log.js';
import { BlobCache, repositoryView, typstJobFiles, type RepositoryView } from './job-view.js';
import { JOB_ROOT, RenderError, type TypstEngine } from '../../engines/typst/index.js';
import type { MupdfEngine } from '../../engines/mupdf/index.js';

const target = targets.pdf;

/** The `renderpdf` step: optional XSLT, then Typst, storing the PDF, the content XML and the log. */
export function renderPdfStep(deps: { typst: TypstEngine; mupdf: MupdfEngine; transformer: Transformer; assets: MediaAssets }): Step {
  const cache = new BlobCache();
  return {
    name: target.step,
    async run(input: StepInput): Promise<StepOutcome> {
      const { ctx, ticket, params } = input;
      // A part of a fanout with aggregate: its merge will come, so a MuPDF process gets ready now.
      if (ticket.aggregate_id) deps.mupdf.warm();
      const log = new JobLog(ctx.now);
      const config = await input.config.of(target.step);
      const keep = await retentionPlan(ctx, ticket.tenant, ticket.project, config, retentionDefaults[target.step]);
      let content: Buffer | null = null;
      let msecs = 0;
      const stored = new ArtifactWriter(ctx, ticket);
      const warnings: string[] = [];
      try {
        log.info(`ticket ${ticket.id} tenant ${ticket.tenant} project ${ticket.project} attempt ${ticket.attempt}`);
        const job = await transformedInput(input, deps.transformer, log);
        const { data, dataType } = job;
        msecs += job.msecs;
        if (dataType === 'xml') content = data;
        // Image URLs of the data, downloaded for the template (a failed one is only a warning).
        const assets = await deps.assets.prepare({ tenant: ticket.tenant, data, dataType, now: ctx.now });
        for (const line of assets.log) log[line.level](line.message);
        warnings.push(...assets.warnings);
        // Counted now: the downloads happened whether or not the render succeeds. Statistics
        // must not fail a render, so a failed write is only logged.
        await recordUsage(ctx, ticket.tenant, ticket.project, ctx.now(), downloadCounters(assets.report)).catch((err: unknown) => ctx.logger.error({ err, ticket: ticket.id }, 'recording download usage failed'));

        const view = await repositoryView(ctx, ticket.tenant, ticket.project);
        const template = await loadTemplate(ctx, cache, view, params.documentTemplate);
        log.info(`template ${params.documentTemplate} (${template.source})`);
        const templatePath = `/${masterPathOf(target, params.documentTemplate)}`;
        const { files, fonts, dataPath } = await typstJobFiles(ctx, cache, view, { resources: job.resources, assets: assets.files, data, dataType, template: template.data, templatePath });
        const inputs: Record<string, string> = {
          ticket: ticket.id,
          tenant: ticket.tenant,
          project: ticket.project,
          user: ticket.user_name,
          foreignKey: ticket.foreign_key ?? '',
          documentTemplate: params.documentTemplate,
          dataFile: dataPath,
          createdAt: new Date(ticket.created).toISOString(),
          resources: [...job.resources.map((r) => r.name), ...[...view.keys()].filter((p) => p.startsWith('/images/')).map((p) => p.slice(1)), ...assets.resources].join('\n'),
          assets: assets.assetsInput,
        };
        for (const [k, v] of Object.entries(params.custom)) inputs[`custom.${k}`] = v;
        const timeoutMs = config.maxExecutionMillis ?? ctx.settings.renderTimeoutMs;
        const pdfStandard = config.pdfStandard;
        // PDF/UA and the "a" conformance levels of PDF/A require tags; otherwise they are opt-in.
        const pdfTags = config.pdfTags ?? (pdfStandard !== undefined && /^(ua-1|a-[123]a)$/.test(pdfStandard));
        const rendering = deps.typst
          .render(
            {
              files,
              main: JOB_ROOT + templatePath,
              inputs,
              pdfTags,
              ...(pdfStandard ? { pdfStandard } : {}),
              ...(fonts ? { fonts } : {}),
            },
            timeoutMs,
          );
        // The render has its job: SQLite's WAL is checkpointed during the compile (on the
        // store's own thread) instead of inside a later commit. For a ticket intake handed over,
        // intake's commit of its row lands during that checkpoint, so the WAL seldom starts over
        // and SQLite's own checkpoint still runs inside a commit here every ~20 synchronous
        // requests. Waiting for intake's commit first was measured, alone and with the thread
        // also starting the WAL over by a write of its own: the slow commits nearly went away,
        // but the p50 of 150 synchronous requests after an async run rose (2 cores; alone, four
        // alternated pairs, higher in each; with the write, ten pairs, mean 13.1 against 12.4
        // ms) and their p95 did not fall.
        ctx.db.checkpointSoon(ctx.now());
        const out = await rendering
          .catch((err: unknown) => {
            if (err instanceof RenderError) {
              for (const d of err.diagnostics.slice(1)) log.warn(d);
              const code = { timeout: ticketErrorCodes.timeout, memory: ticketErrorCodes.memory, crash: ticketErrorCodes.internal, template: ticketErrorCodes.unprocessable }[err.kind];
              throw new StepFailure(code, err.kind === 'template' ? `template ${params.documentTemplate}: ${err.message}` : err.message);
            }
            throw err;
          });
        msecs += out.msecs;
        for (const w of out.warnings) log.warn(w);
        log.info(`rendered ${out.pages} page(s), ${out.pdf.length} bytes in ${Math.round(out.msecs)} ms`);
        const outputName = outputNameOf(target, ticket.id);
        // The files go to storage side by side: each is a round trip (a file's open, write and
        // rename; an object store's request), and none depends on another.
        await stored.settle([
          keep.output.onSuccess ? stored.put(outputName, 'output', out.pdf, target.mediaType, keep.output) : null,
          keep.log.onSuccess && content ? stored.put(`${ticket.id}.content.xml`, 'content', content, 'application/xml', keep.log) : null,
          keep.log.onSuccess ? stored.put(`${ticket.id}.typst.log`, 'log', log.toBuffer(), 'text/plain; charset=utf-8', keep.log) : null,
        ]);
        return { kind: 'succeeded', artifacts: stored.rows, outputName, outputBytes: out.pdf, msecs: Math.round(msecs), pages: out.pages, messages: warnings };
      } catch (err) {
        const failure = unexpectedFailure(ctx, ticket, err, 'internal error while rendering');
        log.fatal(failure.message);
        if (keep.log.onError) {
          if (content) await stored.put(`${ticket.id}.content.xml`, 'content', content, 'application/xml', keep.log);
          await stored.put(`${ticket.id}.typst.log`, 'log', log.toBuffer(), 'text/plain; charset=utf-8', keep.log);
        }
        return { kind: 'failed', errorCode: failure.code, errorMessage: failure.message, artifacts: stored.rows, msecs: Math.round(msecs), messages: warnings };
      }
    },
  };
}

/** The template from the job's view of the repository (project over tenant over global), else a built-in one. */
async function loadTemplate(ctx: Context, cache: BlobCache, view: RepositoryView, name: string): Promise<{ data: Buffer; source: string }> {
  const row = view.get(`/${masterPathOf(target, name)}`);
  if (row) return { data: await cache.get(ctx, row), source: row.path };
  const builtin = await readBuiltinTemplate(name);
  if (builtin) return { data: builtin, source: 'built-in' };
  throw new StepFailure(ticketErrorCodes.notFound, `template ${name} not found in ${target.masters.folder}/`);
}
