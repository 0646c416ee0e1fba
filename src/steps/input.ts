import type { Context } from '../context.js';
import type { TicketRow } from '../store/index.js';
import type { TicketParams } from '../tickets/params.js';
import { readZip, zipLimits } from '../zip/index.js';

/** A ticket's input: the data file and, for ZIP input, the resources beside it. */
export interface TicketInput {
  data: Buffer;
  dataType: 'xml' | 'json';
  resources: { name: string; data: Buffer }[];
}

/**
 * Reads a ticket's input and unpacks a ZIP (checked again: blobs may be old). `received` is the
 * request body intake still holds for a ticket it handed this process; else the stored copy
 * (inline or blob) is read.
 */
export async function loadTicketInput(ctx: Context, ticket: TicketRow, params: TicketParams, received?: Buffer): Promise<TicketInput> {
  const raw = received ?? (ticket.input_inline ? Buffer.from(ticket.input_inline) : ticket.input_key ? await ctx.blobs.get(ticket.input_key) : undefined);
  if (!raw) throw new InputMissingError(`input of ticket ${ticket.id} is no longer stored (keepInputForSeconds passed?)`);
  const dataType = params.dataFile === 'data.json' ? 'json' : 'xml';
  if (ticket.input_type === 'zip-part') {
    // A fanout part of a ZIP: its XML inline, the resources in the ZIP its siblings share.
    const zip = ticket.input_key ? await ctx.blobs.get(ticket.input_key) : undefined;
    if (!zip || !ticket.input_inline) throw new InputMissingError(`input of ticket ${ticket.id} is no longer stored (keepInputForSeconds passed?)`);
    const files = (await readZip(zip, zipLimits(ctx.settings))).flatMap((e) => (e.kind === 'file' ? [e] : []));
    return { data: Buffer.from(ticket.input_inline), dataType: 'xml', resources: files.filter((f) => f.name !== 'data.xml' && f.name !== 'data.json').map((f) => ({ name: f.name, data: f.data })) };
  }
  if (ticket.input_type !== 'zip') return { data: raw, dataType, resources: [] };
  const files = (await readZip(raw, zipLimits(ctx.settings))).flatMap((e) => (e.kind === 'file' ? [e] : []));
  const data = files.find((f) => f.name === params.dataFile);
  if (!data) throw new InputMissingError(`${params.dataFile} missing from the ZIP input`);
  return { data: data.data, dataType, resources: files.filter((f) => f !== data).map((f) => ({ name: f.name, data: f.data })) };
}

/** The stored input is gone or incomplete (a permanent failure). */
export class InputMissingError extends Error {}
