import type { Connection } from './connections.js';
import { bearerToken, scopeParam } from './oauth2.js';
import type { DeliveryFailure } from './outcome.js';
import { DeliveryConfigError, type WebhookSession } from './session.js';

/** Where a connection's OAuth2 tokens come from, and with which scopes. */
export interface TokenSource {
  /** Used when `authentication.tokenUrl` is not configured (the DAM uploader knows its endpoint). */
  defaultTokenUrl?: string;
  /** Used when neither `authentication.scope` nor the connection's `scope` is set. */
  defaultScopes?: string;
}

/**
 * The headers that authenticate a request on `conn`: an API key header, or a bearer token
 * (fetched, or taken from the cache unless `refresh`). Empty without authentication.
 */
export async function authHeaders(session: WebhookSession, conn: Connection | undefined, source: TokenSource, refresh: boolean): Promise<Record<string, string> | DeliveryFailure> {
  const auth = conn?.authentication;
  if (!auth) return {};
  if (auth.type === 'ApiKey') {
    if (!auth.key || auth.value === undefined) throw new DeliveryConfigError('authentication: ApiKey needs key and value');
    return { [auth.key.toLowerCase()]: await session.secret(auth.value, 'authentication.value') };
  }
  const tokenUrl = auth.tokenUrl ?? source.defaultTokenUrl;
  if (!tokenUrl) throw new DeliveryConfigError(`authentication.tokenUrl is required for OAuth2 on ${conn.url}`);
  const scope = scopeParam(auth.scope ?? conn.scope ?? source.defaultScopes);
  const token = await bearerToken(session, auth, { tokenUrl, scope, now: session.ctx.now() }, refresh);
  return typeof token === 'string' ? { authorization: `Bearer ${token}` } : token;
}

/** True for a failure (rather than headers). */
export function isFailure(value: Record<string, string> | DeliveryFailure): value is DeliveryFailure {
  return typeof (value as DeliveryFailure).errorCode === 'string' && typeof (value as DeliveryFailure).message === 'string';
}
