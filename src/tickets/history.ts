import type { Context } from '../context.js';
import { badRequest } from '../errors.js';
import { ticketHistory as store } from '../store/index.js';
import { statusView, type TicketStatusView } from './status-view.js';

/** Filters of a history request (already checked against the route schema). */
export interface HistoryQuery {
  status?: string;
  step?: string;
  foreignKey?: string;
  limit?: number;
  cursor?: string;
}

export interface HistoryPage {
  tickets: TicketStatusView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export const HISTORY_DEFAULT_LIMIT = 50;

// A cursor names the last ticket of a page; opaque to clients, readable to us.
const encodeCursor = (created: number, id: string): string => Buffer.from(JSON.stringify([created, id])).toString('base64url');

function decodeCursor(cursor: string): { created: number; id: string } {
  try {
    const [created, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof created === 'number' && Number.isSafeInteger(created) && typeof id === 'string' && id.length <= 64) return { created, id };
  } catch {
    // fall through
  }
  throw badRequest('cursor is not one this service gave out', 'cursor');
}

/** A page of a project's tickets (open and completed ones still held), newest first. */
export async function ticketHistory(ctx: Context, tenant: string, project: string, q: HistoryQuery): Promise<HistoryPage> {
  const limit = q.limit ?? HISTORY_DEFAULT_LIMIT;
  const rows = await store.listTickets(ctx.db.kysely, {
    tenant,
    project,
    ...(q.status ? { status: q.status } : {}),
    ...(q.step ? { step: q.step } : {}),
    ...(q.foreignKey !== undefined ? { foreignKey: q.foreignKey } : {}),
    ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { tickets: page.map(statusView), nextCursor: rows.length > limit && last ? encodeCursor(last.created, last.id) : null };
}
