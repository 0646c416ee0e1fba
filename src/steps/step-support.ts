import { isBlobOutage } from '../blobs/index.js';
import { lookupRepositoryFile, readRepositoryBlob } from '../repository/lookup.js';
import type { Context } from '../context.js';
import type { ArtifactRow, TicketRow } from '../store/index.js';
import { ticketErrorCodes } from '../errors.js';
import { attemptFileKey } from '../tickets/blob-keys.js';
import { StepFailure, type StepInput } from '../tickets/step.js';
import { InputMissingError, loadTicketInput, type TicketInput } from './input.js';
import { TransformError, type Transformer } from '../engines/xslt/index.js';

/**
 * The failure an unexpected error becomes: a blob store outage keeps its readable message under
 * errorCode 503 (redeliverable); anything else is logged and reported as an internal error.
 */
export function unexpectedFailure(ctx: Context, ticket: TicketRow, err: unknown, internalMessage: string): StepFailure {
  if (err instanceof StepFailure) return err;
  if (isBlobOutage(err)) return new StepFailure(ticketErrorCodes.unavailable, err.publicMessage);
  ctx.logger.error({ err, ticket: ticket.id }, `${internalMessage} (unexpected)`);
  return new StepFailure(ticketErrorCodes.internal, internalMessage);
}

/**
 * Stores one file of a step attempt: up to `inlineFileMaxBytes` it goes into its artifact row
 * (committed with the step: no file to create, no object to PUT), anything larger to the blob
 * store first. Returns the row's `data`.
 */
export async function storeStepFile(ctx: Context, key: string, data: Buffer): Promise<Buffer | null> {
  if (data.length <= ctx.settings.inlineFileMaxBytes) return data;
  await ctx.blobs.putUnreferenced(key, data);
  return null;
}

/** Writes a step attempt's files ({@link attemptFileKey}; small ones in their rows) and collects their rows. */
export class ArtifactWriter {
  /** One place per put in the order they were asked for, filled once the file is stored. */
  private readonly slots: (ArtifactRow | undefined)[] = [];
  constructor(
    private readonly ctx: Context,
    private readonly ticket: TicketRow,
  ) {}

  /** The stored files, in the order their puts were called (puts may run side by side). */
  get rows(): ArtifactRow[] {
    return this.slots.filter((r): r is ArtifactRow => r !== undefined);
  }

  /**
   * Waits for puts started side by side; the first failure is thrown once all have ended, so
   * that every file stored by then has its row (and none lands after the step reported).
   */
  async settle(puts: (Promise<void> | null)[]): Promise<void> {
    const failed = (await Promise.allSettled(puts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Stores one file ({@link storeStepFile}) and fills its row. */
  async put(name: string, kind: 'output' | 'log' | 'content', data: Buffer, contentType: string, keep: { until: number | null; rule: string }): Promise<void> {
    const { ticket } = this;
    const key = attemptFileKey(ticket, name);
    // A file written again (the log, rewritten with the failure after a failed batch) keeps one row.
    const again = this.slots.findIndex((r) => r?.name === name);
    const slot = again >= 0 ? again : this.slots.push(undefined) - 1;
    const inRow = await storeStepFile(this.ctx, key, data);
    this.slots[slot] = {
      ticket: ticket.id,
      name,
      kind,
      blob_key: key,
      size: data.length,
      content_type: contentType,
      keep_until: keep.until,
      keep_rule: keep.rule,
      created: this.ctx.now(),
      data: inRow,
    };
  }
}

/** Runs a repository stylesheet (`transform/xslt/<name>`) in the sandbox; failures become StepFailures. */
export async function applyStylesheet(
  ctx: Context,
  transformer: Transformer,
  job: { tenant: string; project: string; name: string; input: Buffer; inputType: 'xml' | 'json'; params: Record<string, string> },
): Promise<Buffer> {
  const ref = await lookupRepositoryFile(ctx, job.tenant, job.project, `transform/xslt/${job.name}`);
  if (!ref) throw new StepFailure(ticketErrorCodes.notFound, `stylesheet ${job.name} not found in transform/xslt/`);
  try {
    return await transformer.transform({
      stylesheet: await readRepositoryBlob(ctx, ref),
      stylesheetName: job.name,
      input: job.input,
      inputType: job.inputType,
      params: { ...job.params, tenant: job.tenant, project: job.project },
    });
  } catch (err) {
    if (err instanceof TransformError) {
      const code = err.code === 'timeout' ? ticketErrorCodes.timeout : err.code === 'memory' ? ticketErrorCodes.memory : ticketErrorCodes.unprocessable;
      throw new StepFailure(code, `transform ${job.name}: ${err.message}`);
    }
    throw err;
  }
}

/**
 * A ticket's input with `transformBefore` and `transform` applied in that order: the data the
 * renderer reads (XML once a stylesheet ran), its resources, and the time the stylesheets took.
 */
export async function transformedInput(
  { ctx, ticket, params, received }: StepInput,
  transformer: Transformer,
  log: { info(message: string): void },
): Promise<TicketInput & { msecs: number }> {
  const job = await loadTicketInput(ctx, ticket, params, received).catch((err: unknown) => {
    throw err instanceof InputMissingError ? new StepFailure(ticketErrorCodes.input, err.message) : err;
  });
  let { data, dataType } = job;
  let msecs = 0;
  for (const name of [params.transformBefore, params.transform]) {
    if (!name) continue;
    const started = performance.now();
    data = await applyStylesheet(ctx, transformer, { tenant: ticket.tenant, project: ticket.project, name, input: data, inputType: dataType, params: { ...params.custom, ticket: ticket.id } });
    dataType = 'xml';
    msecs += performance.now() - started;
    log.info(`transform ${name}: ${data.length} bytes of XML in ${Math.round(performance.now() - started)} ms`);
  }
  return { data, dataType, resources: job.resources, msecs };
}
