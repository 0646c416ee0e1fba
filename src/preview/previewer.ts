import type { Principal } from '../auth/index.js';
import { lookupRepositoryFile, resolveStepConfig } from '../repository/lookup.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { JOB_ROOT, RenderError, type DiagnosticDetail } from '../engines/typst/index.js';
import { readBuiltinTemplate } from '../repository/builtin-templates.js';
import { BlobCache, repositoryView, typstJobFiles } from '../steps/render-pdf/job-view.js';
import { PreviewEngines } from './engines.js';
import type { PreviewInput } from './request.js';

/** One page of a preview as the API answers it. */
export interface PreviewPageView {
  index: number;
  width: number;
  height: number;
  svg?: string;
  png?: string;
  text: string;
}

export interface PreviewResult {
  pages: PreviewPageView[];
  compileMs: number;
  diagnostics: DiagnosticDetail[];
}

/**
 * Renders previews for the Studio: the render step's job (repository view, helper library,
 * data, sys.inputs) in the render step's sandbox and time limit, answered as pages instead of
 * a ticket.
 */
export class Previewer {
  private readonly engines: PreviewEngines;
  private readonly cache = new BlobCache();

  constructor(private readonly ctx: Context) {
    this.engines = new PreviewEngines(ctx);
  }

  /** Compiles the template over the data; `signal` is the client going away. */
  async preview(principal: Principal, tenant: string, project: string, input: PreviewInput, signal?: AbortSignal): Promise<PreviewResult> {
    const { ctx } = this;
    const restapi = await resolveStepConfig(ctx, 'restapi', tenant, project);
    const config = await resolveStepConfig(ctx, 'renderpdf', tenant, project);
    const name = input.documentTemplate ?? (restapi.documentTemplate as string | undefined) ?? (config.documentTemplate as string | undefined) ?? 'default';
    const template = input.template ?? (await this.storedTemplate(tenant, project, name));

    const view = await repositoryView(ctx, tenant, project);
    const templatePath = `/master-documents/${name}.typ`;
    const { files, fonts, dataPath } = await typstJobFiles(ctx, this.cache, view, { resources: input.resources, data: input.data, dataType: input.dataType, template, templatePath });
    const inputs: Record<string, string> = {
      ticket: 'preview',
      tenant,
      project,
      user: principal.user,
      foreignKey: '',
      documentTemplate: name,
      dataFile: dataPath,
      createdAt: new Date(ctx.now()).toISOString(),
      resources: [...input.resources.map((r) => r.name), ...[...view.keys()].filter((p) => p.startsWith('/images/')).map((p) => p.slice(1))].join('\n'),
      assets: '',
    };
    const timeoutMs = (config.maxExecutionMillis as number | undefined) ?? ctx.settings.previewTimeoutMs;
    const out = await this.engines
      .render(
        {
          files,
          main: JOB_ROOT + templatePath,
          inputs,
          pdfTags: false,
          output: input.format === 'svg' ? 'svg' : 'pdf+text',
          ...(fonts ? { fonts } : {}),
        },
        timeoutMs,
        signal,
      )
      .catch((err: unknown) => {
        throw asAppError(err, timeoutMs);
      });
    const pages = out.preview?.pages ?? [];
    const images = input.format === 'png' ? await this.engines.rasterise(out.pdf, input.resolution, timeoutMs) : [];
    return {
      pages: pages.map((p, i) => ({
        index: i + 1,
        width: p.width,
        height: p.height,
        ...(p.svg !== undefined ? { svg: p.svg } : {}),
        ...(images[i] ? { png: Buffer.from(images[i].data).toString('base64') } : {}),
        text: p.text,
      })),
      compileMs: Math.round(out.msecs),
      diagnostics: out.preview?.warnings ?? [],
    };
  }

  private async storedTemplate(tenant: string, project: string, name: string): Promise<Buffer> {
    const row = await lookupRepositoryFile(this.ctx, tenant, project, `master-documents/${name}.typ`);
    if (row) return this.cache.get(this.ctx, row);
    const builtin = await readBuiltinTemplate(name);
    if (builtin) return builtin;
    throw new AppError('bad_request', `documentTemplate: template ${name} not found in master-documents/ (project, tenant, global or built-in)`, {
      details: [{ field: 'documentTemplate', message: 'template not found' }],
    });
  }

  /** Stops the preview processes. */
  async close(): Promise<void> {
    await this.engines.close();
  }
}

/** A render failure as the preview answers it: 422 with the diagnostics, 504 at the time limit. */
function asAppError(err: unknown, timeoutMs: number): AppError {
  if (!(err instanceof RenderError)) return new AppError('internal', 'preview failed', { cause: err });
  if (err.kind === 'timeout') return new AppError('template_timeout', `preview stopped after ${timeoutMs} ms (the render time limit); does the template loop forever?`);
  if (err.kind === 'crash') return new AppError('internal', 'the preview process ended before it finished (out of memory?)', { cause: err });
  const diagnostics = err.details.length > 0 ? err.details : [{ file: '', line: 1, column: 1, message: err.message, severity: 'error' as const }];
  return new AppError('template_error', `template does not compile: ${err.message}`, { extra: { diagnostics } });
}
