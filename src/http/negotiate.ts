import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

interface Range {
  type: string;
  q: number;
}

function parseAccept(header: string): Range[] {
  return header
    .split(',')
    .map((part) => {
      const [type, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: (type ?? '').trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((r) => r.type !== '' && !Number.isNaN(r.q));
}

/** `*\/*` < `type/*` < `type/subtype`. */
function specificity(range: string): number {
  if (range === '*/*') return 0;
  return range.endsWith('/*') ? 1 : 2;
}

function matches(range: string, type: string): boolean {
  if (range === '*/*' || range === type) return true;
  if (range.endsWith('/*')) return type.startsWith(range.slice(0, -1));
  return false;
}

/**
 * Picks the offered type the Accept header prefers; 406 when it is missing or names none.
 * Ties go to the order of `offered`, so a `*\/*` client gets the endpoint's main type.
 */
export function negotiate(req: FastifyRequest, offered: readonly string[]): string {
  const header = req.headers.accept;
  if (!header) throw new AppError('not_acceptable', `Accept header missing; this endpoint sends ${offered.join(', ')}`);
  const ranges = parseAccept(header);
  let best: { type: string; q: number; specific: boolean } | undefined;
  for (const type of offered) {
    // The most specific matching range decides a type's quality, so `*/*, application/pdf;q=0` refuses PDF.
    let range: Range | undefined;
    for (const r of ranges) {
      if (!matches(r.type, type)) continue;
      const more = range === undefined || specificity(r.type) > specificity(range.type) || (specificity(r.type) === specificity(range.type) && r.q > range.q);
      if (more) range = r;
    }
    if (!range || range.q <= 0) continue;
    const specific = range.type === type;
    if (!best || range.q > best.q || (range.q === best.q && specific && !best.specific)) best = { type, q: range.q, specific };
  }
  if (!best) throw new AppError('not_acceptable', `Accept "${header}" names no type this endpoint sends (${offered.join(', ')})`);
  return best.type;
}

/** The media type of the request body, lower-case, without parameters. */
export function contentType(req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
