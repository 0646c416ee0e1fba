import type { Connection } from './connections.js';
import { authHeaders, isFailure, type TokenSource } from './credentials.js';
import type { Exchange, OutgoingRequest } from './http.js';
import { errorCodeOf, retryAfterMs, succeeded, type DeliveryFailure } from './outcome.js';
import type { DeliveryLimits } from './requests.js';
import type { WebhookSession } from './session.js';

/**
 * Sends a request built with the connection's authentication headers (never sent on to another
 * origin by a redirect). A 401 on an OAuth2
 * connection fetches a fresh token and sends once more (that first 401 is not a failure of its
 * own); any other answer is returned as it is. A token endpoint that refuses is the failure.
 */
export async function sendAuthorized(
  session: WebhookSession,
  conn: Connection | undefined,
  source: TokenSource,
  build: (auth: Record<string, string>) => OutgoingRequest | Promise<OutgoingRequest>,
  limits: DeliveryLimits,
): Promise<Exchange | DeliveryFailure> {
  const auth = await authHeaders(session, conn, source, false);
  if (isFailure(auth)) return auth;
  const ex = await session.send(originBound(await build(auth), auth), limits);
  if (ex.status !== 401 || conn?.authentication?.type !== 'OAuth2') return ex;
  const fresh = await authHeaders(session, conn, source, true);
  if (isFailure(fresh)) return fresh;
  return session.send(originBound(await build(fresh), fresh), limits);
}

/** The request with its authentication headers marked as sent to its own origin only. */
function originBound(req: OutgoingRequest, auth: Record<string, string>): OutgoingRequest {
  return { ...req, originOnly: [...(req.originOnly ?? []), ...Object.keys(auth)] };
}

/** The failure a non-2xx exchange stands for: message, errorCode, and a Retry-After if given. */
export function failureOf(session: WebhookSession, ex: Exchange): DeliveryFailure {
  const wait = retryAfterMs(ex.headers['retry-after'], session.ctx.now());
  return { errorCode: errorCodeOf(ex), message: session.describe(ex), ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
}

/** The 2xx exchange, or the failure: a returned DeliveryFailure, or a non-2xx exchange described. */
export function checked(session: WebhookSession, result: Exchange | DeliveryFailure): Exchange | DeliveryFailure {
  if (!('status' in result)) return result;
  return succeeded(result) ? result : failureOf(session, result);
}

/** True for a failure (rather than an exchange). */
export function isDeliveryFailure(result: Exchange | DeliveryFailure): result is DeliveryFailure {
  return !('status' in result);
}
