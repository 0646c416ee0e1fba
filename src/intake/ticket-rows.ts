import type { StepConfig } from '../config/ion/index.js';
import type { TicketRow } from '../store/index.js';
import { checkUrlList, type RenderQuery, type TicketParams } from '../tickets/params.js';
import type { CheckedBody } from './request-checks.js';
import { targets } from '../steps/targets.js';

/** The choices a request's tickets carry, as resolved from the query and `restapi/config.ion`. */
export interface ParamChoices {
  query: RenderQuery;
  restapi: StepConfig<'restapi'>;
  transform: string | undefined;
  transformBefore: string | undefined;
  convert: string | undefined;
  documentTemplate: string;
  profiles: string[];
  custom: Record<string, string>;
  body: CheckedBody;
  fanout: boolean;
  /** A synchronous request waits for these tickets. */
  awaited: boolean;
}

/** The parameters stored with each ticket; the callback, error and upload URLs are checked here (400). */
export function ticketParams(c: ParamChoices): TicketParams {
  return {
    ...optional('callback', checkUrlList('callback', c.query.callback ?? c.restapi.callbackUrl)),
    ...optional('error', checkUrlList('error', c.query.error ?? c.restapi.errorUrl)),
    ...optional('upload', checkUrlList('upload', c.query.upload ?? c.restapi.uploadUrl)),
    ...optional('transform', c.transform),
    ...optional('convert', c.convert),
    // With fanout, transformBefore runs at intake, before the split; otherwise in the render step.
    ...optional('transformBefore', c.fanout ? undefined : c.transformBefore),
    documentTemplate: c.documentTemplate,
    profiles: c.profiles,
    custom: c.custom,
    dataFile: c.body.dataFile,
    ...(c.body.resources.length > 0 ? { resources: c.body.resources } : {}),
    ...(c.awaited ? { awaited: true as const } : {}),
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** What every ticket of one request shares. */
export interface RowBase {
  tenant: string;
  project: string;
  user: string;
  target: 'pdf' | 'pptx';
  params: TicketParams;
  foreignKey: string | null;
  now: number;
  /** The project's recent request count: busy projects queue behind quiet ones. */
  priority: number;
  keepInputUntil: number;
  maxParallel: number | null;
}

/** Where a ticket's input is: inline in its row or under a blob key. */
export interface InputRef {
  type: string;
  inline: Buffer | null;
  key: string | null;
  size: number;
}

/** Makes one ticket row: due now for its render step; `extra` sets what differs (fanout parts, the aggregate). */
export type MakeRow = (id: string, input: InputRef, extra?: Partial<TicketRow>) => TicketRow;

/** The row maker of one request. */
export function rowMaker(base: RowBase): MakeRow {
  return (id, input, extra = {}) => ({
    id,
    tenant: base.tenant,
    project: base.project,
    user_name: base.user,
    target: base.target,
    status: null,
    next: targets[base.target].step,
    complete: 0,
    run_after: base.now,
    priority: base.priority,
    lease_owner: null,
    lease_until: null,
    attempt: 0,
    redeliveries: 0,
    messages: '[]',
    error_code: null,
    error_message: null,
    params: JSON.stringify(base.params),
    input_type: input.type,
    input_inline: input.inline,
    input_key: input.key,
    input_size: input.size,
    foreign_key: base.foreignKey,
    processing_msecs: 0,
    processing_pages: 0,
    group_id: null,
    part_index: null,
    output_name: null,
    shipped: 0,
    created: base.now,
    updated: base.now,
    completed: null,
    keep_input_until: base.keepInputUntil,
    aggregate_id: null,
    max_parallel: base.maxParallel,
    ...extra,
  });
}
