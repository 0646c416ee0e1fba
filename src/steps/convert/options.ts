// The image conversion option set (`convert`) of the contract: `key=value` pairs separated by
// `;`, long or short names. Parsing is pure so intake (400 on a syntax error) and the convert
// step (which re-reads the stored string) agree on every value and every fallback.
import type { PageRange, PageSelection } from '../../engines/mupdf/index.js';

// Page selections are the converter's own notion; the option set names them.
export { selectPages, type PageRange, type PageSelection } from '../../engines/mupdf/index.js';

/** Output formats; `jpeg` is accepted as another spelling of `jpg`. */
export type ImageFormat = 'png' | 'jpg';

/** A parsed option set; `notes` explain every fallback or bound that was applied. */
export interface ConvertOptions {
  format: ImageFormat;
  /** Requested resolution in dpi, after fallback and the upper bound. */
  resolution: number;
  /** JPEG quality 0–100 (ignored for PNG). */
  quality: number;
  pages: PageSelection;
  notes: string[];
}

/** @defaultValue 150 dpi, the contract's default resolution. */
export const DEFAULT_RESOLUTION = 150;
/** Highest resolution honoured; higher values are lowered to it. */
export const MAX_RESOLUTION = 600;
/** @defaultValue 75, the contract's default JPEG quality. */
export const DEFAULT_QUALITY = 75;
/** Converter names `app` accepts; there is one converter, so these are synonyms. */
export const CONVERTER_NAMES = ['mupdf', 'default'] as const;

/** A syntax error or an unsupported value in the option set (400 at intake). */
export class ConvertOptionError extends Error {}

const aliases: Record<string, string> = {
  format: 'format',
  f: 'format',
  resolution: 'resolution',
  r: 'resolution',
  page: 'page',
  p: 'page',
  pageset: 'pageset',
  ps: 'pageset',
  quality: 'quality',
  q: 'quality',
  app: 'app',
  a: 'app',
};

const integer = /^[+]?\d+$/;

/** Parses and validates an option set; throws ConvertOptionError naming the offending option. */
export function parseConvertOptions(source: string): ConvertOptions {
  const text = source.trim();
  if (/\s/.test(text)) {
    throw new ConvertOptionError('only one conversion step is supported; remove what follows the space (pipelines of several steps are not available)');
  }
  const values = new Map<string, { key: string; value: string }>();
  for (const pair of text.split(';')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) throw new ConvertOptionError(`"${clip(pair)}" is not a key=value pair`);
    const key = pair.slice(0, eq).toLowerCase();
    const option = aliases[key];
    if (!option) throw new ConvertOptionError(`unknown option "${clip(key)}" (known: format/f, resolution/r, page/p, pageset/ps, quality/q, app/a)`);
    if (values.has(option)) throw new ConvertOptionError(`option ${option} is given twice`);
    values.set(option, { key, value: pair.slice(eq + 1) });
  }
  const notes: string[] = [];
  const format = parseFormat(values.get('format')?.value);
  const app = values.get('app')?.value.toLowerCase();
  if (app !== undefined && !(CONVERTER_NAMES as readonly string[]).includes(app)) {
    throw new ConvertOptionError(`app "${clip(app)}" is not available; the one converter is ${CONVERTER_NAMES.join(' (or ')})`);
  }
  const resolution = parseResolution(values.get('resolution')?.value, notes);
  const quality = parseQuality(values.get('quality')?.value, notes);
  const pageset = values.get('pageset')?.value;
  const page = values.get('page')?.value;
  let pages: PageSelection;
  if (pageset !== undefined) {
    pages = { kind: 'pageset', ranges: parsePageset(pageset) };
    if (page !== undefined) notes.push('pageset overrides page');
  } else {
    pages = { kind: 'page', page: page === undefined ? 1 : parsePage(page) };
  }
  return { format, resolution, quality, pages, notes };
}

/** The canonical spelling of parsed options (long names, every value explicit). */
export function formatConvertOptions(o: ConvertOptions): string {
  const pages = o.pages.kind === 'page' ? `page=${o.pages.page}` : `pageset=${o.pages.ranges.map(rangeText).join(',')}`;
  return `format=${o.format};resolution=${o.resolution};${pages}${o.format === 'jpg' ? `;quality=${o.quality}` : ''}`;
}

/** The media type of the main output: one image, or a ZIP of images for a pageset. */
export function convertMediaType(o: Pick<ConvertOptions, 'format' | 'pages'>): 'image/png' | 'image/jpeg' | 'application/zip' {
  if (o.pages.kind === 'pageset') return 'application/zip';
  return o.format === 'png' ? 'image/png' : 'image/jpeg';
}

function parseFormat(value: string | undefined): ImageFormat {
  if (value === undefined || value === '') throw new ConvertOptionError('format is mandatory: format=png or format=jpg');
  const v = value.toLowerCase();
  if (v === 'png') return 'png';
  if (v === 'jpg' || v === 'jpeg') return 'jpg';
  throw new ConvertOptionError(`format "${clip(value)}" is not supported; use png or jpg`);
}

function parseResolution(value: string | undefined, notes: string[]): number {
  if (value === undefined) return DEFAULT_RESOLUTION;
  const n = integer.test(value) ? Number(value) : NaN;
  if (!(n >= 1)) {
    notes.push(`resolution "${clip(value)}" is invalid (an integer of at least 1 is needed); using ${DEFAULT_RESOLUTION} dpi`);
    return DEFAULT_RESOLUTION;
  }
  if (n > MAX_RESOLUTION) {
    notes.push(`resolution ${clip(value)} is above the maximum; using ${MAX_RESOLUTION} dpi`);
    return MAX_RESOLUTION;
  }
  return n;
}

function parseQuality(value: string | undefined, notes: string[]): number {
  if (value === undefined) return DEFAULT_QUALITY;
  const n = integer.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 100)) {
    notes.push(`quality "${clip(value)}" is invalid (an integer from 0 to 100 is needed); using ${DEFAULT_QUALITY}`);
    return DEFAULT_QUALITY;
  }
  return n;
}

function parsePage(value: string): number {
  const n = integer.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && Number.isSafeInteger(n))) throw new ConvertOptionError(`page "${clip(value)}" is not a page number (an integer of at least 1)`);
  return n;
}

/** `all`, or comma-separated `N`, `N-M`, `N-n` and `n` (the last page). */
function parsePageset(value: string): PageRange[] {
  if (value.toLowerCase() === 'all') return [{ from: 1, to: null }];
  if (value === '') throw new ConvertOptionError('pageset is empty; use all, or ranges like 1-3,5,7-n');
  return value.split(',').map((item) => {
    const m = /^(\d+|n)(?:-(\d+|n))?$/i.exec(item);
    if (!m) throw new ConvertOptionError(`pageset item "${clip(item)}" is not a page or a range (like 3, 1-3 or 3-n)`);
    const bound = (s: string): number | null => (s.toLowerCase() === 'n' ? null : Number(s));
    const from = bound(m[1]!);
    const to = m[2] === undefined ? from : bound(m[2]);
    if (from === 0 || to === 0) throw new ConvertOptionError(`pageset item "${clip(item)}": pages are numbered from 1`);
    if (from !== null && !Number.isSafeInteger(from)) throw new ConvertOptionError(`pageset item "${clip(item)}": page number too large`);
    if (to !== null && !Number.isSafeInteger(to)) throw new ConvertOptionError(`pageset item "${clip(item)}": page number too large`);
    if (from === null && to !== null) throw new ConvertOptionError(`pageset item "${clip(item)}": a range cannot start at n (the last page) and end at a number`);
    if (from !== null && to !== null && to < from) throw new ConvertOptionError(`pageset item "${clip(item)}": the range runs backwards`);
    return { from, to };
  });
}

function rangeText(r: PageRange): string {
  if (r.from === null) return 'n';
  if (r.to === null) return `${r.from}-n`;
  return r.from === r.to ? String(r.from) : `${r.from}-${r.to}`;
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
