import type { HistoryRow } from '../store/index.js';

/** TicketStatusView as the status endpoint shows it. */
export interface TicketStatusView {
  complete: boolean;
  tenant: string;
  project: string;
  ticket: string;
  status: string | null;
  next: string | null;
  messages: string[];
  created: string;
  updated: string;
  redeliveries: number;
  processingMsecs: number;
  processingPages: number;
  errorCode: string | null;
  errorMessage: string | null;
  foreignKey: string | null;
  outputName: string | null;
  shipped: boolean;
  /** Fanout part: the aggregate ticket that merges it (null otherwise). */
  aggregate: string | null;
}

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
