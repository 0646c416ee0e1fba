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
    .filter((r) => r.type !== '' && r.q > 0);
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
    for (const r of ranges) {
      if (!matches(r.type, type)) continue;
      const specific = r.type === type;
      if (!best || r.q > best.q || (r.q === best.q && specific && !best.specific)) best = { type, q: r.q, specific };
    }
  }
  if (!best) throw new AppError('not_acceptable', `Accept "${header}" names no type this endpoint sends (${offered.join(', ')})`);
  return best.type;
}

/** The media type of the request body, lower-case, without parameters. */
export function contentType(req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
