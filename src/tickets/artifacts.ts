import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { ByteRange } from '../blobs/index.js';
import type { Context } from '../context.js';
import { notFound } from '../errors.js';
import { artifactBytes, artifactStream, tickets, type ArtifactRow, type TicketRow } from '../store/index.js';

/** The main output of a complete ticket, or 404. */
export async function mainArtifact(ctx: Context, ticket: TicketRow): Promise<ArtifactRow> {
  if (ticket.complete !== 1 || !ticket.output_name) throw notFound(`artifact of ticket ${ticket.id}`);
  const row = await tickets.findArtifactByName(ctx.db.kysely, ticket.output_name);
  if (!row || row.ticket !== ticket.id) throw notFound(`artifact of ticket ${ticket.id}`);
  return row;
}

/**
 * The output of a complete ticket in the given media type: the main artifact, or another output
 * beside it (after convert, the PDF stays stored next to the image or pageset ZIP); else 404.
 */
export async function outputOfType(ctx: Context, ticket: TicketRow, contentType: string): Promise<ArtifactRow> {
  const row = (await tickets.outputsOfType(ctx.db.kysely, [ticket], contentType)).get(ticket.id);
  if (!row) throw notFound(`artifact of type ${contentType} for ticket ${ticket.id}`);
  return row;
}

/** Size of one stored file (in its row, or as the blob store holds it), or 404. */
export async function artifactSize(ctx: Context, row: ArtifactRow): Promise<number> {
  if (row.data) return row.data.length;
  const size = await ctx.blobs.size(row.blob_key);
  if (size === undefined) throw notFound(`artifact ${row.name}`);
  return size;
}

/** Streams one stored file, or only the bytes of `range`. */
export async function openArtifact(ctx: Context, row: ArtifactRow, range?: ByteRange): Promise<Readable> {
  const stream = await artifactStream(ctx.blobs, row, range);
  if (!stream) throw notFound(`artifact ${row.name}`);
  return stream;
}

/** An artifact's bytes at once (for small files: one read, and the answer knows its length). */
export async function readArtifact(ctx: Context, row: ArtifactRow): Promise<Buffer> {
  const data = await artifactBytes(ctx.blobs, row);
  if (!data) throw notFound(`artifact ${row.name}`);
  return data;
}

/** All stored files of a complete ticket packed into one ZIP, streamed. */
export async function artifactZip(ctx: Context, ticket: TicketRow): Promise<Readable> {
  if (ticket.complete !== 1) throw notFound(`artifacts of ticket ${ticket.id}`);
  const rows = await tickets.listArtifacts(ctx.db.kysely, ticket.id);
  if (rows.length === 0) throw notFound(`artifacts of ticket ${ticket.id}`);
  const zip = new ZipFile();
  for (const row of rows) {
    if (row.data) {
      zip.addBuffer(Buffer.from(row.data), row.name, { mtime: new Date(row.created) });
      continue;
    }
    const info = await ctx.blobs.stat(row.blob_key);
    if (!info) continue;
    // Opened when the ZIP reaches the entry: one file (one S3 response) at a time, none held whole.
    zip.addReadStreamLazy(row.name, { mtime: new Date(row.created), size: info.size }, (cb) => {
      ctx.blobs.stream(row.blob_key).then(
        (stream) => (stream ? cb(null, stream) : cb(new Error(`blob ${row.blob_key} disappeared while zipping`), undefined as never)),
        (err: unknown) => cb(err, undefined as never),
      );
    });
  }
  zip.end();
  return zip.outputStream as Readable;
}

/** Finds a stored file by name within a project, or 404. */
export async function findStoredFile(ctx: Context, tenant: string, project: string, filename: string): Promise<{ row: ArtifactRow; ticket: TicketRow }> {
  const row = await tickets.findArtifactByName(ctx.db.kysely, filename);
  const ticket = row ? await tickets.findProjectTicket(ctx.db.kysely, tenant, project, row.ticket) : undefined;
  if (!row || !ticket) throw notFound(`file ${filename}`);
  return { row, ticket };
}
