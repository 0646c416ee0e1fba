// Reading and writing the playground's template and data through the repository and ticket APIs.
import { api, ok } from '../../api/client';
import { ApiError } from '../../api/errors';
import { BUILTIN_DEFAULT, type DataType } from '../../state/playground';
import type { ProjectAccess } from '../../state/session';

export const templatePath = (p: ProjectAccess, name: string) => `tenants/${p.tenant}/projects/${p.project}/master-documents/${name}.typ`;

async function readFile(path: string): Promise<string | null> {
  const r = await api.GET('/rest/repository/files/{path}', { params: { path: { path: path } }, headers: { accept: '*/*' }, parseAs: 'text' });
  if (r.response.status === 404 || r.response.status === 403) return null;
  if (!r.response.ok) throw new ApiError(r.response.status, { message: `reading ${path} failed (HTTP ${r.response.status})` });
  return r.data as unknown as string;
}

/** The template as the renderer would find it: project, tenant, global, then the built-in default. */
export async function openTemplate(p: ProjectAccess, name: string): Promise<{ text: string; from: string }> {
  const levels = [templatePath(p, name), `tenants/${p.tenant}/master-documents/${name}.typ`, `master-documents/${name}.typ`];
  for (const path of levels) {
    const text = await readFile(path);
    if (text !== null) return { text, from: path };
  }
  if (name === 'default') return { text: BUILTIN_DEFAULT, from: 'built-in default' };
  throw new ApiError(404, { message: `no template master-documents/${name}.typ in this project, its tenant or globally` });
}

/** Writes master-documents/<name>.typ of the project. */
export async function saveTemplate(p: ProjectAccess, name: string, text: string): Promise<string> {
  const path = templatePath(p, name);
  ok(
    await api.PUT('/rest/repository/files/{path}', {
      params: { path: { path: path } },
      body: text as never,
      bodySerializer: (b: unknown) => b as string,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    }),
  );
  return path;
}

/** Starts the real pipeline (renderpdf) with this template and data; the new ticket's id. */
export async function renderTicket(p: ProjectAccess, name: string, dataText: string, type: DataType): Promise<string> {
  const r = ok(
    await api.POST('/rest/tenants/{tenant}/projects/{project}/renderpdf', {
      params: { path: { tenant: p.tenant, project: p.project }, query: { documentTemplate: name } as never },
      body: dataText as never,
      bodySerializer: (b: unknown) => b as string,
      headers: { 'content-type': type === 'json' ? 'application/json' : 'application/xml', accept: 'application/json' },
    }),
  ) as { tickets: ({ id: string } | string)[] };
  const first = r.tickets[0];
  if (!first) throw new Error('the service answered without a ticket');
  return typeof first === 'string' ? first : first.id;
}

/** A past ticket's input as text, with its type (ZIP inputs cannot be edited here). */
export async function ticketInput(p: ProjectAccess, ticket: string): Promise<{ text: string; type: DataType }> {
  const r = await api.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/input', {
    params: { path: { tenant: p.tenant, project: p.project, ticket } },
    headers: { accept: '*/*' },
    parseAs: 'text',
  });
  if (!r.response.ok) {
    const body = (await Promise.resolve(r.error).catch(() => ({}))) as { message?: string };
    throw new ApiError(r.response.status, { message: body?.message ?? `the input of ticket ${ticket} could not be read (HTTP ${r.response.status})` });
  }
  const type = r.response.headers.get('content-type') ?? '';
  if (type.includes('zip')) throw new Error(`ticket ${ticket} has a ZIP input; the playground edits XML or JSON data only`);
  return { text: r.data as unknown as string, type: type.includes('json') ? 'json' : 'xml' };
}

/** XML and JSON files of the project's repository folder, offered as sample data. */
export async function listSamples(p: ProjectAccess): Promise<string[]> {
  const r = await api.GET('/rest/repository/tree/{path}', {
    params: { path: { path: `tenants/${p.tenant}/projects/${p.project}` }, query: { recursive: true, pattern: '\\.(xml|json)$' } },
  });
  if (!r.response.ok) return [];
  return r.data!.files.map((f) => f.path);
}

export async function readSample(path: string): Promise<{ text: string; type: DataType }> {
  const text = await readFile(path);
  if (text === null) throw new ApiError(404, { message: `${path} is gone` });
  return { text, type: path.endsWith('.json') ? 'json' : 'xml' };
}
