import { ApiError } from './errors';
import { api } from './client';

export type Scope = 'jobs' | 'admin';

/** OAuth-style password grant at /auth/{tenant}/tokens; the answer's message on failure. */
export async function requestToken(tenant: string, project: string, username: string, password: string, scope: Scope): Promise<string> {
  const { data, error, response } = await api.POST('/auth/{tenant}/tokens', {
    params: { path: { tenant } },
    // The document types this form body as unknown; it is sent form-encoded.
    body: { username, password, project, scope },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (response.ok && data) return data.access_token;
  const body = (error ?? {}) as { error_description?: string; message?: string; error?: string };
  throw new ApiError(response.status, { status: response.status, message: body.error_description ?? body.message ?? body.error ?? `sign-in failed with HTTP ${response.status}` });
}
