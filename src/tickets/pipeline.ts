import type { TicketParams } from './params.js';

/**
 * The steps of a ticket after `step` succeeded, in order; the first one is due next.
 * Steps whose URL is not set are skipped (the contract runs a webhook step only with a URL).
 */
export function stepAfter(step: string, params: TicketParams, implemented: ReadonlySet<string>): string | null {
  const order = ['renderpdf', 'renderpptx', 'aggregate', 'convert', 'upload', 'callback'];
  const wanted = (s: string): boolean => {
    if (!implemented.has(s)) return false;
    if (s === 'convert') return params.convert !== undefined;
    if (s === 'upload') return params.upload !== undefined;
    if (s === 'callback') return params.callback !== undefined;
    return false;
  };
  const start = order.indexOf(step);
  for (const s of order.slice(start + 1)) if (wanted(s)) return s;
  return null;
}

/** The step that reports a terminal failure, when configured and available. */
export function errorStep(params: TicketParams, implemented: ReadonlySet<string>): string | null {
  return params.error !== undefined && implemented.has('error') ? 'error' : null;
}
