import { ticketErrorCodes } from '../errors.js';
import type { Exchange } from './http.js';

/**
 * errorCode values of failed webhook steps besides the target's HTTP status: no complete answer
 * in time; connection refused, reset, DNS or TLS failure; a target address that is not public and
 * not on PRESSROOM_ALLOW_PRIVATE_ADDRESSES; a configuration that cannot be used (missing output,
 * unreadable sealed value, incomplete DAM setup).
 */
export const webhookErrorCodes = {
  timeout: ticketErrorCodes.timeout,
  network: ticketErrorCodes.network,
  refused: ticketErrorCodes.refused,
  config: ticketErrorCodes.unprocessable,
} as const;

/** Why a delivery failed: what the step reports to the worker. */
export interface DeliveryFailure {
  errorCode: string;
  message: string;
  retryAfterMs?: number;
}

/** Whether an exchange ended with a 2xx answer. */
export function succeeded(ex: Exchange): boolean {
  return ex.status !== null && ex.status >= 200 && ex.status < 300;
}

/**
 * The ticket message of a failed exchange, exactly as the contract shows it:
 * `HTTP [<status>] (<n> ms, <n> bytes sent, <n> bytes received). <METHOD> <url>`. Without an
 * answer the status is `timeout`, `refused` or `error` and the reason follows in parentheses.
 */
export function failureLine(ex: Exchange): string {
  const head = `HTTP [${ex.status ?? ex.failure?.kind ?? 'error'}] (${ex.ms} ms, ${ex.bytesSent} bytes sent, ${ex.bytesReceived} bytes received). ${ex.method} ${withoutCredentials(ex.url)}`;
  return ex.failure ? `${head} (${ex.failure.reason})` : head;
}

/** A URL as messages show it: user and password of `https://user:pass@host/` become `***`. */
function withoutCredentials(url: string): string {
  const m = /^(https?:\/\/)[^/?#@]*@/i.exec(url);
  return m ? `${m[1]}***@${url.slice(m[0].length)}` : url;
}

/** The errorCode of a failed exchange: its HTTP status, else the code of why there was none. */
export function errorCodeOf(ex: Exchange): string {
  if (ex.status !== null) return String(ex.status);
  if (ex.failure?.kind === 'timeout') return webhookErrorCodes.timeout;
  if (ex.failure?.kind === 'refused') return webhookErrorCodes.refused;
  return webhookErrorCodes.network;
}

const DAY_MS = 86_400_000;

/** `Retry-After` (seconds or an HTTP date) as a delay in ms from `now`, capped at a day. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(DAY_MS, Math.max(0, ms));
}
