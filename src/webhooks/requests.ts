import type { Connection, WebhookStep } from './connections.js';
import { defaultBody, type WebhookEvent } from './event.js';
import { escapeFor, escapes, fill } from './placeholders.js';
import type { WebhookSession } from './session.js';

/** User-Agent of each step; receivers and their firewalls can tell the three apart. */
export const userAgents: Record<WebhookStep, string> = {
  upload: 'pressroom service-upload',
  callback: 'pressroom service-callback',
  error: 'pressroom service-error',
};

/** Time limits of one delivery. */
export interface DeliveryLimits {
  connectTimeoutMs: number;
  timeoutMs: number;
  maxRedirects: number;
}

/** Connect 10 s; whole exchange 30 s for notifications, 5 min for uploads; no redirects. */
export function limitsOf(step: WebhookStep, conn: Connection | undefined): DeliveryLimits {
  return {
    connectTimeoutMs: conn?.connectTimeoutMillis ?? 10_000,
    timeoutMs: conn?.timeoutMillis ?? (step === 'upload' ? 300_000 : 30_000),
    maxRedirects: conn?.followRedirects ?? 0,
  };
}

/** The connection's `headers`: names lower-case, placeholders filled, sealed values opened in memory. */
export async function configuredHeaders(session: WebhookSession, conn: Connection | undefined, values: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(conn?.headers ?? {})) {
    out[name.toLowerCase()] = fill(await session.secret(value, `headers.${name}`), values, escapes.header);
  }
  return out;
}

/**
 * Names of configured headers a redirect to another origin drops: all but Content-Type, which
 * describes the body that is sent on and carries no secret.
 */
function originOnly(configured: Record<string, string>): string[] {
  return Object.keys(configured).filter((name) => name !== 'content-type');
}

/** Method, headers and body of a callback or error request (before authentication and signature). */
export interface Notification {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Configured headers, sent to the URL's own origin only. */
  originOnly: string[];
}

/**
 * A callback or error request: by default POST, JSON, the contract's body; a configured
 * `payload` replaces the body (its values joined, placeholders escaped for the Content-Type),
 * `method` and `headers` replace the defaults. GET sends no body.
 */
export async function notification(session: WebhookSession, ev: WebhookEvent, conn: Connection | undefined, values: Record<string, string>): Promise<Notification> {
  const configured = await configuredHeaders(session, conn, values);
  const headers: Record<string, string> = { 'user-agent': userAgents[ev.step], 'content-type': 'application/json', ...configured };
  const method = (conn?.method ?? 'POST').toUpperCase();
  if (method === 'GET') return { method, headers, body: undefined, originOnly: originOnly(configured) };
  const template = conn?.payload?.map((p) => p.value).join('');
  const text = template !== undefined && template !== '' ? fill(template, values, escapeFor(headers['content-type']!)) : JSON.stringify(defaultBody(ev));
  return { method, headers, body: Buffer.from(text, 'utf8'), originOnly: originOnly(configured) };
}

/**
 * Method, headers and transfer mode of a plain upload: by default PUT with chunked transfer
 * encoding; a connection sets the method and headers, and `use-chunked-transfer: false` sends a
 * Content-Length instead. The body is always the output, as application/octet-stream.
 */
export async function uploadShape(
  session: WebhookSession,
  conn: Connection | undefined,
  values: Record<string, string>,
): Promise<{ method: string; headers: Record<string, string>; chunked: boolean; originOnly: string[] }> {
  const configured = await configuredHeaders(session, conn, values);
  return {
    method: (conn?.method ?? 'PUT').toUpperCase(),
    headers: { 'user-agent': userAgents.upload, 'content-type': 'application/octet-stream', ...configured },
    chunked: conn?.['use-chunked-transfer'] ?? true,
    originOnly: originOnly(configured),
  };
}
