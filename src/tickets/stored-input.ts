import type { Readable } from 'node:stream';
import type { Context } from '../context.js';
import { notFound } from '../errors.js';
import type { TicketRow } from '../store/index.js';

const contentTypes: Record<string, string> = {
  xml: 'application/xml',
  json: 'application/json',
  zip: 'application/zip',
  // A fanout part of a ZIP: its own XML is inline; the resources stay in the shared ZIP.
  'zip-part': 'application/xml',
};

/** The media type of a ticket's stored input; 404 for tickets without one (aggregates). */
export function storedInputType(ticket: Pick<TicketRow, 'id' | 'input_type'>): string {
  const type = contentTypes[ticket.input_type];
  if (!type) throw notFound(`input of ticket ${ticket.id} (an aggregate ticket has none)`);
  return type;
}

/** A ticket's input as it was stored (the request body, or a fanout part's XML); 404 once dropped. */
export async function storedInput(ctx: Context, ticket: TicketRow): Promise<{ data: Buffer | Readable; contentType: string; name: string }> {
  const contentType = storedInputType(ticket);
  const data = ticket.input_inline
    ? Buffer.from(ticket.input_inline)
    : ticket.input_key && ticket.input_type !== 'zip-part'
      ? await ctx.blobs.stream(ticket.input_key)
      : undefined;
  if (!data) throw notFound(`input of ticket ${ticket.id} (no longer kept: keepInputForSeconds passed)`);
  const ext = ticket.input_type === 'zip' ? 'zip' : ticket.input_type === 'json' ? 'json' : 'xml';
  return { data, contentType, name: `${ticket.id}.input.${ext}` };
}
