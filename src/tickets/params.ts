import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../errors.js';

const xsltName = { pattern: '^\\w+\\.xslt$', description: 'XSLT file name in transform/xslt/' };

/** The query of a render request: the route validates it, intake reads it. */
export const RenderQuerySchema = Type.Object({
  callback: Type.Optional(Type.String({ maxLength: 4096, description: 'callback URL pattern(s); `{location}`, `{ticket}`' })),
  error: Type.Optional(Type.String({ maxLength: 4096, description: 'error URL pattern(s); `{errorCode}`, `{errorMessage}`, `{ticket}`' })),
  upload: Type.Optional(Type.String({ maxLength: 4096, description: 'upload URL pattern(s); `{ticket}`' })),
  transform: Type.Optional(Type.String(xsltName)),
  transformBefore: Type.Optional(Type.String(xsltName)),
  documentTemplate: Type.Optional(Type.String({ pattern: '^[\\w.-]{1,100}$', default: undefined, description: 'template name (default `default`)' })),
  foreignKey: Type.Optional(Type.String({ maxLength: 256 })),
  profile: Type.Optional(Type.String({ pattern: '^[\\w-]+(,[\\w-]+)*$', maxLength: 512, description: 'profile name(s), comma-separated' })),
  customParams: Type.Optional(Type.String({ maxLength: 8192, description: 'percent-encoded query-style custom parameters' })),
  custom: Type.Optional(Type.Array(Type.String({ maxLength: 4096, description: '<key>:<value>' }), { maxItems: 100 })),
  timeToWait: Type.Optional(Type.Integer({ minimum: 6000, maximum: 1200000, description: 'synchronous mode: wait up to this many msec' })),
  convert: Type.Optional(Type.String({ maxLength: 256, description: 'PDF-to-image conversion (matrix style); renderpdf only' })),
});
export type RenderQuery = Static<typeof RenderQuerySchema>;

/** What a ticket remembers of its request (stored as JSON in `tickets.params`). */
export interface TicketParams {
  callback?: string;
  error?: string;
  upload?: string;
  transform?: string;
  transformBefore?: string;
  documentTemplate: string;
  profiles: string[];
  custom: Record<string, string>;
  convert?: string;
  /** Name of the data file in the job view: `data.xml` or `data.json`. */
  dataFile: 'data.xml' | 'data.json';
  /** Resource paths of a ZIP input (besides the data file), for templates. */
  resources?: string[];
  /** Fanout part: its label (title, name or id attribute of the item) for aggregate bookmarks. */
  label?: string;
  /** Aggregate ticket: the output kind of its parts. */
  outputTarget?: 'pdf' | 'pptx';
  /** Aggregate ticket: when it gives up waiting for its parts (epoch ms). */
  deadline?: number;
  /**
   * A synchronous request waits for this ticket, maybe in another process: its completion is
   * announced to every process (PostgreSQL NOTIFY). Other tickets' completions stay in-process.
   */
  awaited?: true;
}

const MAX_CUSTOM = 100;

/** Merges `customParams` (a percent-encoded query string) and repeated `custom=key:value`. */
export function parseCustom(query: RenderQuery): Record<string, string> {
  const out: Record<string, string> = {};
  if (query.customParams) {
    for (const [k, v] of new URLSearchParams(query.customParams)) {
      if (!/^[\w.-]{1,64}$/.test(k)) throw customError('customParams', `key "${k.slice(0, 64)}" must be 1-64 of A-Z a-z 0-9 _ . -`);
      out[k] = v;
    }
  }
  for (const entry of query.custom ?? []) {
    const i = entry.indexOf(':');
    const key = i < 0 ? '' : entry.slice(0, i);
    if (!/^[\w.-]{1,64}$/.test(key)) throw customError('custom', `entry "${entry.slice(0, 64)}" must be <key>:<value> with a key of 1-64 of A-Z a-z 0-9 _ . -`);
    out[key] = entry.slice(i + 1);
  }
  if (Object.keys(out).length > MAX_CUSTOM) throw customError('custom', `at most ${MAX_CUSTOM} custom parameters`);
  return out;
}

function customError(field: string, message: string): AppError {
  return new AppError('bad_request', `${field}: ${message}`, { details: [{ field, message }] });
}

/** Checks whitespace-separated webhook URL patterns: absolute http(s) once placeholders are filled. */
export function checkUrlList(field: 'callback' | 'error' | 'upload', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const urls = value.trim().split(/\s+/).filter(Boolean);
  if (urls.length === 0) return undefined;
  for (const u of urls) {
    const probe = u.replace(/\{(ticket|location|errorCode|errorMessage)\}/g, 'x').replace(/\$\{[\w.-]+\}/g, 'x');
    let parsed: URL;
    try {
      parsed = new URL(probe);
    } catch {
      throw new AppError('bad_request', `${field}: "${u}" is not an absolute URL`, { details: [{ field, message: 'not an absolute URL' }] });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new AppError('bad_request', `${field}: only http and https URLs are allowed`, { details: [{ field, message: 'scheme not allowed' }] });
    }
  }
  return urls.join(' ');
}
