import type { TicketRow } from '../store/index.js';
import type { WebhookStep } from './connections.js';

/**
 * The ticket parameters a delivery reads, filled by the webhook steps: the URL lists of the
 * three webhook steps and the custom parameters.
 */
export interface DeliveryParams {
  readonly callback?: string;
  readonly error?: string;
  readonly upload?: string;
  readonly custom: Readonly<Record<string, string>>;
}

/** Everything a webhook request of one ticket can mention. */
export interface WebhookEvent {
  step: WebhookStep;
  ticket: TicketRow;
  params: DeliveryParams;
  /** Export parameters of earlier uploads. */
  exports: Readonly<Record<string, string>>;
  /** Time of this attempt (epoch ms). */
  now: number;
}

/**
 * Where a client fetches the output: the path of the storage endpoint, relative to the
 * service's origin (`/rest/tenants/T/projects/P/storage/<ticket>.pdf`). Empty when no output
 * was kept (keepOutput `never`).
 */
export function locationOf(ticket: TicketRow): string {
  return ticket.output_name ? `/rest/tenants/${ticket.tenant}/projects/${ticket.project}/storage/${ticket.output_name}` : '';
}

/** `pdf`, `pptx`, …: the output's extension, else the render target. */
export function outputTypeOf(ticket: TicketRow): string {
  const ext = ticket.output_name ? /\.([A-Za-z0-9]+)$/.exec(ticket.output_name)?.[1] : undefined;
  return (ext ?? ticket.target).toLowerCase();
}

/** ISO 8601 with an explicit offset (UTC, written `+00:00` rather than `Z`). */
export function dateTimeOf(now: number): string {
  return new Date(now).toISOString().replace('Z', '+00:00');
}

/** The contract's body fields of the step, without custom and exported parameters. */
function standardFields(ev: WebhookEvent): Record<string, string> {
  const t = ev.ticket;
  const fields: Record<string, string> = {
    tenant: t.tenant,
    project: t.project,
    user: t.user_name,
    ticket: t.id,
    outputType: outputTypeOf(t),
    foreignKey: t.foreign_key ?? '',
  };
  if (ev.step === 'error') fields.errorMessage = t.error_message ?? '';
  else fields.location = locationOf(t);
  fields.dateTime = dateTimeOf(ev.now);
  fields.timestamp = String(ev.now);
  return fields;
}

/**
 * The values `{name}` / `${name}` placeholders take: custom parameters, then export parameters,
 * then the standard fields (a custom parameter cannot pose as `ticket`), plus `errorCode` for the
 * error step and `location` for every step (empty before an output exists).
 */
export function placeholderValues(ev: WebhookEvent): Record<string, string> {
  const values: Record<string, string> = { ...ev.params.custom, ...ev.exports, ...standardFields(ev) };
  values.location = locationOf(ev.ticket);
  if (ev.step === 'error') {
    values.errorCode = ev.ticket.error_code ?? '';
    values.errorMessage = ev.ticket.error_message ?? '';
  }
  return values;
}

/**
 * The default JSON body of callback and error requests: each custom parameter at top level,
 * export parameters of the upload, then tenant, project, user, ticket, outputType, foreignKey,
 * location (callback) or errorMessage (error), dateTime and timestamp.
 */
export function defaultBody(ev: WebhookEvent): Record<string, string> {
  return { ...ev.params.custom, ...ev.exports, ...standardFields(ev) };
}
