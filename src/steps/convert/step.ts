import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { isBlobOutage } from '../../blobs/index.js';
import type { Context } from '../../context.js';
import { ticketErrorCodes, type TicketErrorCode } from '../../errors.js';
import { artifactBytes, tickets, type ArtifactRow, type TicketRow } from '../../store/index.js';
import { attemptFileKey } from '../../tickets/blob-keys.js';
import { StepFailure, type Step, type StepInput, type StepOutcome } from '../../tickets/step.js';
import { ConvertError, type MupdfEngine, type PageImage } from '../../engines/mupdf/index.js';
import { convertMediaType, ConvertOptionError, parseConvertOptions, type ConvertOptions } from './options.js';
import { targets } from '../targets.js';
import { storeStepFile } from '../step-support.js';

const errorCodeOf: Record<ConvertError['kind'], TicketErrorCode> = {
  page: ticketErrorCodes.input,
  'too-large': ticketErrorCodes.tooLarge,
  pdf: ticketErrorCodes.unprocessable,
  crash: ticketErrorCodes.internal,
  timeout: ticketErrorCodes.timeout,
  memory: ticketErrorCodes.memory,
};

/**
 * The `convert` step: draws pages of the ticket's PDF (its current output) as PNG or JPEG.
 * One page becomes `<ticket>.png`/`.jpg`, a pageset `<ticket>.zip` with `<ticket>-<page>.<ext>`
 * entries; either becomes the ticket's main output, while the PDF stays stored beside it.
 */
export function convertStep(deps: { mupdf: MupdfEngine }): Step {
  return {
    name: 'convert',
    async run({ ctx, ticket, params }: StepInput): Promise<StepOutcome> {
      const started = performance.now();
      const msecs = () => Math.round(performance.now() - started);
      try {
        const options = parseStored(params.convert);
        const { row, pdf } = await loadPdf(ctx, ticket);
        const stored = options.pages.kind === 'page' ? await convertPage(ctx, deps.mupdf, ticket, row, pdf, options) : await convertPageset(ctx, deps.mupdf, ticket, row, pdf, options);
        const messages = [...options.notes.map((n) => `convert: ${n}`), ...stored.messages];
        return { kind: 'succeeded', artifacts: [stored.artifact], outputName: stored.artifact.name, ...(stored.bytes ? { outputBytes: stored.bytes } : {}), msecs: msecs(), messages };
      } catch (err) {
        const failure =
          err instanceof StepFailure
            ? err
            : err instanceof ConvertError
              ? new StepFailure(errorCodeOf[err.kind], `convert: ${err.message}`)
              : isBlobOutage(err)
                ? new StepFailure(ticketErrorCodes.unavailable, `convert: ${err.publicMessage}`)
                : new StepFailure(ticketErrorCodes.internal, 'internal error while converting');
        if (!(err instanceof StepFailure || err instanceof ConvertError || isBlobOutage(err))) ctx.logger.error({ err, ticket: ticket.id }, 'convert step failed unexpectedly');
        return { kind: 'failed', errorCode: failure.code, errorMessage: failure.message, artifacts: [], msecs: msecs() };
      }
    },
  };
}

function parseStored(source: string | undefined): ConvertOptions {
  try {
    return parseConvertOptions(source ?? '');
  } catch (err) {
    // Intake validated the string; this only happens for tickets stored by another version.
    if (err instanceof ConvertOptionError) throw new StepFailure(ticketErrorCodes.input, `convert: ${err.message}`);
    throw err;
  }
}

/** The ticket's current output, which renderpdf stored as the PDF. */
async function loadPdf(ctx: Context, ticket: TicketRow): Promise<{ row: ArtifactRow; pdf: Buffer }> {
  const row = ticket.output_name ? await tickets.findArtifactByName(ctx.db.kysely, ticket.output_name) : undefined;
  const pdf = row && row.ticket === ticket.id && row.content_type === targets.pdf.mediaType ? await artifactBytes(ctx.blobs, row) : undefined;
  if (!row || !pdf) throw new StepFailure(ticketErrorCodes.notFound, 'convert: the PDF to convert is not stored (renderpdf keepOutput must keep the output on success)');
  return { row, pdf };
}

interface Stored {
  artifact: ArtifactRow;
  /** The file's bytes, when they were held whole (one page; a pageset streams). */
  bytes?: Buffer;
  messages: string[];
}

const extension = (o: ConvertOptions) => (o.format === 'png' ? 'png' : 'jpg');

function artifactFor(ctx: Context, ticket: TicketRow, pdfRow: ArtifactRow, name: string, key: string, size: number, contentType: string): ArtifactRow {
  // The images are the same output in another form: they expire with the PDF they come from.
  return { ticket: ticket.id, name, kind: 'output', blob_key: key, size, content_type: contentType, keep_until: pdfRow.keep_until, keep_rule: pdfRow.keep_rule, created: ctx.now(), data: null };
}

function jobOf(pdf: Buffer, o: ConvertOptions) {
  return { pdf, format: o.format, resolution: o.resolution, quality: o.quality, pages: o.pages };
}

function loweredNote(image: PageImage, o: ConvertOptions): string[] {
  return image.resolution < o.resolution ? [`convert: page ${image.page} drawn at ${image.resolution} dpi instead of ${o.resolution} to stay within the raster limit`] : [];
}

async function convertPage(ctx: Context, mupdf: MupdfEngine, ticket: TicketRow, pdfRow: ArtifactRow, pdf: Buffer, o: ConvertOptions): Promise<Stored> {
  let image: PageImage | undefined;
  await mupdf.convert(jobOf(pdf, o), (img) => (image = img));
  if (!image) throw new ConvertError('crash', 'the converter returned no image');
  const name = `${ticket.id}.${extension(o)}`;
  const key = attemptFileKey(ticket, name);
  const data = Buffer.from(image.data);
  const inRow = await storeStepFile(ctx, key, data);
  const messages = [`convert: page ${image.page} to ${o.format} at ${image.resolution} dpi, ${image.width}×${image.height} pixels (${name})`, ...loweredNote(image, o)];
  return { artifact: { ...artifactFor(ctx, ticket, pdfRow, name, key, data.length, convertMediaType(o)), data: inRow }, bytes: data, messages };
}

/** Streams the page images into the ZIP blob as they arrive, so a long pageset is never held in memory. */
async function convertPageset(ctx: Context, mupdf: MupdfEngine, ticket: TicketRow, pdfRow: ArtifactRow, pdf: Buffer, o: ConvertOptions): Promise<Stored> {
  const name = `${ticket.id}.zip`;
  const key = attemptFileKey(ticket, name);
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  const writing = ctx.blobs.put(key, output);
  const notes: string[] = [];
  const mtime = new Date(ctx.now());
  try {
    const result = await mupdf.convert(jobOf(pdf, o), (image) => {
      zip.addBuffer(Buffer.from(image.data), `${ticket.id}-${image.page}.${extension(o)}`, { compress: false, mtime });
      notes.push(...loweredNote(image, o));
    });
    zip.end();
    const size = await writing;
    const summary =
      result.pages.length === 0
        ? `convert: no page of the pageset exists in the ${result.pageCount}-page document; ${name} is empty`
        : `convert: ${result.pages.length} page(s) of ${result.pageCount} to ${o.format} at ${o.resolution} dpi (${name})`;
    return { artifact: artifactFor(ctx, ticket, pdfRow, name, key, size, 'application/zip'), messages: [summary, ...notes] };
  } catch (err) {
    output.destroy(err as Error);
    await writing.catch(() => {});
    await ctx.blobs.delete(key);
    throw err;
  }
}
