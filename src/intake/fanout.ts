import type { StepConfig } from '../config/ion/index.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { tickets, type TicketRow } from '../store/index.js';
import { groupZipKey, inputKey } from '../tickets/blob-keys.js';
import { newTicketId } from '../tickets/ids.js';
import type { TicketParams } from '../tickets/params.js';
import { noFanoutData, splitXml, type FanoutOptions } from './fanout-split.js';
import type { InputBlobs } from './input-blobs.js';
import { fanoutQuota, quotaPeriod } from './quota.js';
import type { CheckedBody, InputType } from './request-checks.js';
import type { MakeRow } from './ticket-rows.js';
import { runTransformBefore } from './transform-before.js';
import type { IntakeResult } from './types.js';
import { targets } from '../steps/targets.js';

/** 400 for fanout with aggregate on renderpptx, before anything is stored. */
export function assertAggregateAvailable(restapi: StepConfig<'restapi'>, target: 'pdf' | 'pptx'): void {
  if (restapi.aggregate?.enabled && !(targets[target].options as readonly string[]).includes('aggregate')) {
    throw new AppError('bad_request', 'aggregate is available for renderpdf only; decks of fanout parts are not merged (disable aggregate.enabled for this project or profile)', {
      details: [{ field: 'aggregate.enabled', message: 'not available for renderpptx' }],
    });
  }
}

/** One fanout request, checked: what storeFanout needs to split it and store its tickets. */
export interface FanoutJob {
  tenant: string;
  project: string;
  target: 'pdf' | 'pptx';
  inputType: InputType;
  body: Buffer;
  checked: CheckedBody;
  transformBefore: string | undefined;
  params: TicketParams;
  restapi: StepConfig<'restapi'>;
  now: number;
  inputBufferSize: number;
  priority: number;
  makeRow: MakeRow;
  blobs: InputBlobs;
}

/**
 * Splits the (transformed) XML and stores each part as a ticket of its own, part by part in
 * one transaction, so memory holds a batch of parts and never the whole set. With
 * `aggregate.enabled`, an aggregate ticket waits for the parts and merges their PDFs.
 */
export async function storeFanout(ctx: Context, job: FanoutJob): Promise<IntakeResult> {
  const { tenant, project, now, checked } = job;
  const config = job.restapi.fanout ?? {};
  const aggregateConfig = job.restapi.aggregate ?? {};
  const options: FanoutOptions = { rootPath: config.rootPath ?? '/data/item', itemType: config.itemType ?? 'document', itemAttribute: config.itemAttribute ?? 'type' };
  let xml = checked.data;
  if (job.transformBefore) xml = await runTransformBefore(ctx, tenant, project, job.transformBefore, checked.data, checked.dataFile === 'data.json' ? 'json' : 'xml', job.params.custom);
  else if (checked.dataFile === 'data.json') {
    throw new AppError('bad_request', 'fanout needs XML: JSON input must be turned into XML by a transformBefore stylesheet', { details: [{ field: 'transformBefore', message: 'required for JSON input with fanout' }] });
  }
  const groupId = newTicketId(now);
  let zipKey: string | null = null;
  if (job.inputType === 'zip') {
    zipKey = groupZipKey({ tenant, project, id: groupId });
    await job.blobs.put(zipKey, job.body);
  }
  const aggregateId = aggregateConfig.enabled ? newTicketId(now) : null;
  const ids: string[] = [];
  const overQuota = await fanoutQuota(ctx, tenant, project, job.restapi.quota, now);
  async function* partRows(): AsyncGenerator<TicketRow[]> {
    for await (const parts of splitXml(xml, options)) {
      const rows: TicketRow[] = [];
      for (const part of parts) {
        const id = newTicketId(now);
        const index = ids.length;
        ids.push(id);
        // A ZIP part keeps its XML inline and shares the ZIP (its resources) with its siblings.
        const inline = zipKey !== null || part.xml.length <= job.inputBufferSize;
        const key = inputKey({ tenant, project, id });
        if (!inline) await job.blobs.put(key, part.xml);
        const partParams: TicketParams = { ...job.params, label: part.label, dataFile: 'data.xml' };
        rows.push(
          job.makeRow(
            id,
            { type: zipKey ? 'zip-part' : 'xml', inline: inline ? part.xml : null, key: zipKey ?? (inline ? null : key), size: part.xml.length },
            // Parts keep their input order among themselves and behind other projects' work.
            { params: JSON.stringify(partParams), priority: job.priority + index, group_id: groupId, part_index: index, aggregate_id: aggregateId },
          ),
        );
      }
      const refusal = overQuota(ids.length);
      if (refusal) throw refusal;
      yield rows;
    }
  }
  const deadline = now + (aggregateConfig.timeoutInSeconds ?? 1800) * 1000;
  const aggregateRow = aggregateId
    ? job.makeRow(
        aggregateId,
        { type: 'aggregate', inline: null, key: null, size: 0 },
        {
          target: 'aggregate',
          next: 'aggregate',
          group_id: groupId,
          // Waits for its parts: made due when the last part finishes, or at the timeout.
          run_after: deadline,
          priority: job.priority,
          params: JSON.stringify({ ...job.params, outputTarget: job.target, deadline }),
        },
      )
    : null;
  const count = await tickets.insertTicketStream(ctx.db.kysely, partRows(), aggregateRow, quotaPeriod(now));
  if (count === 0) throw noFanoutData(options);
  return { tickets: ids, aggregate: aggregateId };
}
