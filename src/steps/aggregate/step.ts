import { ticketErrorCodes, type TicketErrorCode } from '../../errors.js';
import { artifactBytes, tickets, type ArtifactRow } from '../../store/index.js';
import { retentionDefaults, retentionPlan } from '../../tickets/retention/index.js';
import { attemptFileKey } from '../../tickets/blob-keys.js';
import type { TicketParams } from '../../tickets/params.js';
import type { Step, StepInput, StepOutcome } from '../../tickets/step.js';
import { outputNameOf, targets } from '../targets.js';
import { storeStepFile } from '../step-support.js';
import { ConvertError, type MupdfEngine } from '../../engines/mupdf/index.js';

/**
 * The `aggregate` step: once every fanout part succeeded, merges their PDFs in input order
 * with one bookmark per part. A failed part fails it at once; parts still open past
 * `aggregate.timeoutInSeconds` fail it with 504. Until then it defers to its deadline (the
 * last part to finish makes it due early).
 */
export function aggregateStep(deps: { mupdf: MupdfEngine }): Step {
  return {
    name: 'aggregate',
    async run({ ctx, ticket, params, config: configs }: StepInput): Promise<StepOutcome> {
      const db = ctx.db.kysely;
      const parts = await tickets.aggregateParts(db, ticket.id);
      const failed = parts.find((p) => p.complete === 1 && p.status?.endsWith('.failed'));
      if (failed) {
        return fail(ticketErrorCodes.partFailed, `part ${(failed.part_index ?? 0) + 1} (ticket ${failed.id}) failed: ${failed.error_message ?? failed.status}`);
      }
      const open = parts.filter((p) => p.complete === 0);
      if (open.length > 0) {
        const deadline = params.deadline ?? ticket.created;
        if (ctx.now() >= deadline) return fail(ticketErrorCodes.timeout, `aggregate timed out: ${open.length} of ${parts.length} parts still open`);
        return { kind: 'deferred', runAfter: deadline, artifacts: [] };
      }
      const started = performance.now();
      // Each part's PDF, also when the part was converted to images afterwards.
      const outputs = await tickets.outputsOfType(db, parts, targets.pdf.mediaType);
      const sources = [];
      for (const part of parts) {
        const row = outputs.get(part.id);
        const pdf = row ? await artifactBytes(ctx.blobs, row) : undefined;
        if (!pdf) return fail(ticketErrorCodes.notFound, `output of part ${(part.part_index ?? 0) + 1} (ticket ${part.id}) is no longer stored`);
        const label = (JSON.parse(part.params) as TicketParams).label;
        sources.push({ pdf, title: label ?? `Part ${(part.part_index ?? 0) + 1}` });
      }
      const merged = await deps.mupdf.merge(sources).catch((err: unknown) => {
        if (err instanceof ConvertError) return err;
        throw err;
      });
      if (merged instanceof ConvertError) return fail(merged.kind === 'memory' ? ticketErrorCodes.memory : merged.kind === 'timeout' ? ticketErrorCodes.timeout : ticketErrorCodes.internal, `merging the parts failed: ${merged.message}`);
      const config = await configs.of(targets.pdf.step);
      const keep = await retentionPlan(ctx, ticket.tenant, ticket.project, config, retentionDefaults[targets.pdf.step]);
      const name = outputNameOf(targets.pdf, ticket.id);
      const key = attemptFileKey(ticket, name);
      const inRow = await storeStepFile(ctx, key, merged.pdf);
      const artifact: ArtifactRow = {
        ticket: ticket.id,
        name,
        kind: 'output',
        blob_key: key,
        size: merged.pdf.length,
        content_type: targets.pdf.mediaType,
        keep_until: keep.output.until,
        keep_rule: keep.output.rule,
        created: ctx.now(),
        data: inRow,
      };
      return { kind: 'succeeded', artifacts: [artifact], outputName: name, outputBytes: merged.pdf, pages: merged.pages, msecs: Math.round(performance.now() - started) };
    },
  };
}

function fail(errorCode: TicketErrorCode, errorMessage: string): StepOutcome {
  return { kind: 'failed', errorCode, errorMessage, artifacts: [] };
}
