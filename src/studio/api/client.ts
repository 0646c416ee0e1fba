// The one API client of the Studio, typed from the OpenAPI document the service publishes
// (generated at build time into schema.d.ts), so a change of a route's schema breaks this build.
import createClient, { type Middleware } from 'openapi-fetch';
import { expireSession, session } from '../state/session';
import { ApiError, type ErrorBody } from './errors';
import type { PendingPaths } from './pending';
import type { paths } from './schema';

export type Paths = paths & PendingPaths;

/** Path parameters encoded segment by segment, so a repository path keeps its slashes. */
function pathSerializer(pathname: string, params: Record<string, unknown>): string {
  return pathname.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined || value === null ? whole : String(value).split('/').map(encodeURIComponent).join('/');
  });
}

// Anything below a project (tickets, preview, render, storage) takes the project's token;
// the rest (tenants, statistics, repository) the operator's when there is one.
const projectScoped = /^\/rest\/tenants\/[^/]+\/projects\/[^/]+\/./;

function tokenFor(url: string): string | undefined {
  const s = session.value;
  if (!s) return undefined;
  const path = new URL(url, location.origin).pathname;
  if (projectScoped.test(path)) return s.project?.token ?? s.operatorToken ?? undefined;
  return s.operatorToken ?? s.project?.token;
}

const auth: Middleware = {
  onRequest({ request }) {
    const token = tokenFor(request.url);
    if (token && !request.url.includes('/auth/')) request.headers.set('authorization', `Bearer ${token}`);
    if (!request.headers.has('accept')) request.headers.set('accept', 'application/json');
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !request.url.includes('/auth/')) expireSession('HTTP 401');
    return response;
  },
};

export const api = createClient<Paths>({ baseUrl: '', pathSerializer });
api.use(auth);

/** The data of a 2xx answer, or an ApiError carrying the service's error body. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  const body = (typeof result.error === 'object' && result.error !== null ? result.error : { message: String(result.error ?? '') }) as ErrorBody;
  throw new ApiError(result.response.status, body);
}

/** Asks the browser to save a Blob under a file name (downloads need the bearer header, so no plain links). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
