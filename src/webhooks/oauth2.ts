import { createHash } from 'node:crypto';
import type { Authentication } from './connections.js';
import { succeeded, errorCodeOf, webhookErrorCodes, type DeliveryFailure } from './outcome.js';
import { DeliveryConfigError, type WebhookSession } from './session.js';

interface CachedToken {
  accessToken: string;
  expiresAt: number;
  /** A rotated refresh token from the last answer; config.ion cannot be written back. */
  refreshToken?: string;
}

// Tokens per process, keyed by endpoint, client and scope: many tickets share one token until
// it expires. The key holds a hash of the secret, never the secret.
const cache = new Map<string, CachedToken>();
const EARLY_MS = 30_000;

/** Time limits of token requests. */
const LIMITS = { connectTimeoutMs: 10_000, timeoutMs: 30_000, maxRedirects: 0 };

/** What a token request needs besides the connection's authentication. */
export interface TokenRequest {
  tokenUrl: string;
  /** Space-separated, as RFC 6749 wants; config.ion writes them comma-separated. */
  scope: string;
  now: number;
}

/** Config scopes (comma- or space-separated) as the space-separated token request form. */
export function scopeParam(scopes: string | undefined): string {
  return (scopes ?? '').split(/[\s,]+/).filter(Boolean).join(' ');
}

/**
 * A bearer token for an OAuth2 connection: from the cache unless `refresh`, else from the token
 * endpoint (`client_credentials`, or `refresh_token` with `params.refresh_token` for
 * AuthorizationCode — no interactive redirect is ever made). Returns a failure when the endpoint
 * refuses; its message never holds the answer's body, which may carry tokens.
 */
export async function bearerToken(session: WebhookSession, auth: Authentication, req: TokenRequest, refresh: boolean): Promise<string | DeliveryFailure> {
  const clientId = auth.clientId ?? '';
  const clientSecret = await session.secret(auth.clientSecret ?? '', 'authentication.clientSecret');
  const key = [req.tokenUrl, clientId, req.scope, auth.grantType, createHash('sha256').update(clientSecret).digest('hex')].join('\n');
  const hit = cache.get(key);
  if (hit && !refresh && hit.expiresAt > req.now + EARLY_MS) return hit.accessToken;

  const form = new URLSearchParams({ client_id: clientId, client_secret: clientSecret });
  if (auth.grantType === 'AuthorizationCode') {
    const configured = auth.params?.refresh_token ?? auth.params?.refreshToken;
    if (!configured) throw new DeliveryConfigError('authentication.params.refresh_token is required for grantType AuthorizationCode');
    form.set('grant_type', 'refresh_token');
    form.set('refresh_token', hit?.refreshToken ?? (await session.secret(configured, 'authentication.params.refresh_token')));
    if (auth.redirectUri) form.set('redirect_uri', auth.redirectUri);
    if (auth.codeVerifier) form.set('code_verifier', await session.secret(auth.codeVerifier, 'authentication.codeVerifier'));
  } else {
    form.set('grant_type', 'client_credentials');
  }
  if (req.scope) form.set('scope', req.scope);
  const body = Buffer.from(form.toString());
  const ex = await session.send(
    { method: 'POST', url: req.tokenUrl, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': 'pressroom oauth2' }, body },
    LIMITS,
  );
  if (!succeeded(ex)) return { errorCode: errorCodeOf(ex), message: session.describe(ex, { withBody: false }) };
  let answer: { access_token?: unknown; expires_in?: unknown; refresh_token?: unknown };
  try {
    answer = JSON.parse(ex.body.toString('utf8')) as typeof answer;
  } catch {
    answer = {};
  }
  if (typeof answer.access_token !== 'string' || answer.access_token === '') {
    return { errorCode: webhookErrorCodes.network, message: `token endpoint ${req.tokenUrl} answered ${ex.status} without an access_token` };
  }
  const lifetime = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : 3_600_000;
  const refreshToken = typeof answer.refresh_token === 'string' ? answer.refresh_token : hit?.refreshToken;
  cache.set(key, { accessToken: answer.access_token, expiresAt: req.now + lifetime, ...(refreshToken ? { refreshToken } : {}) });
  await session.secret(answer.access_token, 'access_token');
  return answer.access_token;
}
