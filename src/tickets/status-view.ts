import { Type, type Static } from '@sinclair/typebox';
import type { HistoryRow } from '../store/index.js';

/** TicketStatusView as the status endpoint shows it. */
export const TicketStatusViewSchema = Type.Object(
  {
    complete: Type.Boolean(),
    tenant: Type.String(),
    project: Type.String(),
    ticket: Type.String(),
    status: Type.Union([Type.String(), Type.Null()], { description: '`<step>.<outcome>` of the last finished step' }),
    next: Type.Union([Type.String(), Type.Null()], { description: 'step due next; null when complete' }),
    messages: Type.Array(Type.String()),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
    redeliveries: Type.Integer(),
    processingMsecs: Type.Integer(),
    processingPages: Type.Integer(),
    errorCode: Type.Union([Type.String(), Type.Null()], { description: 'errorCode of a failed step (docs/errors.md)' }),
    errorMessage: Type.Union([Type.String(), Type.Null()]),
    foreignKey: Type.Union([Type.String(), Type.Null()]),
    outputName: Type.Union([Type.String(), Type.Null()]),
    shipped: Type.Boolean(),
    aggregate: Type.Union([Type.String(), Type.Null()], { description: 'fanout part: id of the aggregate ticket that merges it' }),
  },
  { $id: 'TicketStatusView', description: 'the state of a ticket' },
);
export type TicketStatusView = Static<typeof TicketStatusViewSchema>;

/** Presents a ticket row. */
export function statusView(row: HistoryRow): TicketStatusView {
  return {
    complete: row.complete === 1,
    tenant: row.tenant,
    project: row.project,
    ticket: row.id,
    status: row.status,
    next: row.next,
    messages: JSON.parse(row.messages) as string[],
    created: new Date(row.created).toISOString(),
    updated: new Date(row.updated).toISOString(),
    redeliveries: row.redeliveries,
    processingMsecs: row.processing_msecs,
    processingPages: row.processing_pages,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    foreignKey: row.foreign_key,
    outputName: row.output_name,
    shipped: row.shipped === 1,
    aggregate: row.aggregate_id,
  };
}
