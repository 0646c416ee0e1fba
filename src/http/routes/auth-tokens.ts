import { Type } from '@sinclair/typebox';
import { authenticate, FailureLimit } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import { contentType } from '../negotiate.js';
import { errors, rawBody, ref } from '../schemas.js';
import type { App } from '../types.js';

const TokenResponse = Type.Object(
  {
    token_type: Type.Literal('bearer'),
    access_token: Type.String(),
    expires_in: Type.Integer(),
    scope: Type.String(),
  },
  { $id: 'TokenResponse', description: 'an access token' },
);

const OAuthError = Type.Object(
  {
    error: Type.String({ description: 'OAuth 2.0 error code: invalid_request, invalid_grant or invalid_scope' }),
    error_description: Type.String(),
    timestamp: Type.String(),
    status: Type.Integer(),
    message: Type.String(),
    path: Type.String(),
  },
  { $id: 'OAuthError', description: 'the token service error body (OAuth 2.0 style)' },
);

/** The form, for the document only: the handler reads the raw body to report missing and repeated fields itself. */
const TokenForm = Type.Object({
  username: Type.String(),
  password: Type.String(),
  project: Type.String(),
  scope: Type.Union([Type.Literal('jobs'), Type.Literal('admin')]),
});

const fields = ['username', 'password', 'project', 'scope'] as const;

/** OAuth-style error body: `error` carries the OAuth code, as token clients expect. */
function oauthError(url: string, code: 'invalid_request' | 'invalid_grant' | 'invalid_scope', message: string): AppError {
  const status = code === 'invalid_grant' ? 401 : 400;
  return new AppError(code, message, {
    body: { error: code, error_description: message, timestamp: new Date().toISOString(), status, message, path: url.split('?')[0] },
  });
}

/** POST /auth/{tenant}/tokens: a password grant, form-urlencoded in, JSON out. */
export async function authRoutes(app: App, ctx: Context): Promise<void> {
  const limit = new FailureLimit(ctx.db, ctx.settings, () => ctx.now());
  const counts = (err: unknown) => err instanceof AppError && (err.code === 'invalid_grant' || err.code === 'invalid_scope');
  app.addSchema(TokenResponse);
  app.addSchema(OAuthError);
  app.post(
    '/:tenant/tokens',
    {
      config: { auth: false, produces: ['application/json'] },
      schema: {
        operationId: 'issueToken',
        summary: 'Issue an access token (OAuth 2.0 password grant style)',
        tags: ['tokens'],
        security: [],
        params: Type.Object({ tenant: Type.String() }),
        rawBody: rawBody(['application/x-www-form-urlencoded'], { 'application/x-www-form-urlencoded': { schema: TokenForm } }),
        response: {
          200: ref(TokenResponse),
          400: ref(OAuthError, 'invalid_request or invalid_scope'),
          401: ref(OAuthError, 'invalid_grant'),
          ...errors(406, 415, 429),
        },
      },
    },
    async (req) => {
      if (contentType(req) !== 'application/x-www-form-urlencoded') {
        throw new AppError('unsupported_media_type', 'token requests must be application/x-www-form-urlencoded');
      }
      const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const form = new URLSearchParams(raw);
      const values: Record<string, string> = {};
      const missing: string[] = [];
      for (const f of fields) {
        const all = form.getAll(f);
        if (all.length !== 1 || all[0] === '') missing.push(f);
        else values[f] = all[0]!;
      }
      if (missing.length > 0) throw oauthError(req.url, 'invalid_request', `form field(s) missing, empty or repeated: ${missing.join(', ')}`);
      try {
        const grant = await limit.guard(
          { user: values.username!, address: req.ip },
          () => authenticate(ctx.db, { tenant: req.params.tenant, username: values.username!, password: values.password!, project: values.project!, scope: values.scope! }),
          counts,
        );
        const { token, expiresIn } = await ctx.tokens.issue(grant);
        req.log.info({ user: grant.user, tenant: grant.tenant, project: grant.project, scope: grant.scope }, 'token issued');
        return { token_type: 'bearer' as const, access_token: token, expires_in: expiresIn, scope: grant.scope };
      } catch (err) {
        if (err instanceof AppError && (err.code === 'invalid_grant' || err.code === 'invalid_scope')) {
          req.log.info({ user: values.username, tenant: req.params.tenant, reason: err.code }, 'token refused');
          throw oauthError(req.url, err.code, err.publicMessage);
        }
        if (err instanceof AppError && err.code === 'rate_limited') req.log.warn({ user: values.username, tenant: req.params.tenant, address: req.ip }, 'token refused: too many failures');
        throw err;
      }
    },
  );
}
