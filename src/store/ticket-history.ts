import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { TicketRow } from './tickets.js';

/** The columns a history page shows (the status view's; never the inline input). */
export const historyColumns = [
  'id', 'tenant', 'project', 'complete', 'status', 'next', 'messages', 'created', 'updated', 'redeliveries',
  'processing_msecs', 'processing_pages', 'error_code', 'error_message', 'foreign_key', 'output_name', 'shipped', 'aggregate_id',
] as const satisfies readonly (keyof TicketRow)[];

export type HistoryRow = Pick<TicketRow, (typeof historyColumns)[number]>;

/** Which tickets of a project a history page shows. */
export interface HistoryFilter {
  tenant: string;
  project: string;
  /** `open`, `complete`, an outcome (`failed`: any `<step>.failed`) or an exact `<step>.<outcome>`. */
  status?: string;
  /** The step due next or the step of the status. */
  step?: string;
  foreignKey?: string;
  /** Continue after this ticket (newest first: older than it). */
  after?: { created: number; id: string };
  limit: number;
}

/**
 * A page of a project's tickets, newest first (created, then id). Status and step values are
 * plain words (checked by the caller), so the LIKE patterns built from them hold no wildcards.
 */
export async function listTickets(db: Kysely<Database>, f: HistoryFilter): Promise<HistoryRow[]> {
  let q = db.selectFrom('tickets').select(historyColumns).where('tenant', '=', f.tenant).where('project', '=', f.project);
  // Literals, so that SQLite plans the `open` filter once, with the partial index of open tickets (migration 016).
  if (f.status === 'open') q = q.where('complete', '=', sql.lit(0));
  else if (f.status === 'complete') q = q.where('complete', '=', sql.lit(1));
  else if (f.status?.includes('.')) q = q.where('status', '=', f.status);
  else if (f.status) q = q.where('status', 'like', `%.${f.status}`);
  if (f.step) {
    const step = f.step;
    q = q.where((eb) => eb.or([eb('next', '=', step), eb('status', 'like', `${step}.%`)]));
  }
  if (f.foreignKey !== undefined) q = q.where('foreign_key', '=', f.foreignKey);
  if (f.after) {
    const { created, id } = f.after;
    q = q.where((eb) => eb.or([eb('created', '<', created), eb.and([eb('created', '=', created), eb('id', '<', id)])]));
  }
  return q.orderBy('created', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
}
