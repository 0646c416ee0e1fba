import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

/** What these helpers use of a server: an in-process test server or a `serve` child process. */
type Client = Pick<TestServer, 'fetch' | 'token' | 'operatorToken'>;

/** Creates a tenant and project through the API and returns tokens for them. */
export async function setupProject(t: Client, tenant = 'acme', project = 'shop'): Promise<{ op: string; jobs: string; admin: string }> {
  const op = await t.operatorToken();
  const a = await t.fetch(`/rest/tenants?name=${tenant}`, { method: 'POST', token: op });
  assert.ok(a.status === 200 || a.status === 409, await a.text());
  const b = await t.fetch(`/rest/tenants/${tenant}/projects?name=${project}`, { method: 'POST', token: op });
  assert.ok(b.status === 200 || b.status === 409, await b.text());
  return { op, jobs: await t.token(tenant, project, 'jobs'), admin: await t.token(tenant, project, 'admin') };
}

/** PUTs a repository file with the given token. */
export async function putFile(t: Client, token: string, path: string, content: string | Buffer): Promise<void> {
  const res = await t.fetch(`/rest/repository/files/${path}`, { method: 'PUT', token, body: content, headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(res.status, 200, `PUT ${path}: ${await res.text()}`);
}

/** Submits an async render and returns the ticket ids. */
export async function submit(
  t: Client,
  token: string,
  body: string | Buffer,
  opts: { query?: string; contentType?: string; tenant?: string; project?: string; target?: string } = {},
): Promise<string[]> {
  const res = await t.fetch(`/rest/tenants/${opts.tenant ?? 'acme'}/projects/${opts.project ?? 'shop'}/${opts.target ?? 'renderpdf'}${opts.query ? `?${opts.query}` : ''}`, {
    method: 'POST',
    token,
    body,
    headers: { 'content-type': opts.contentType ?? 'application/xml' },
  });
  const text = await res.text();
  assert.equal(res.status, 202, text);
  return (JSON.parse(text) as { tickets: { id: string }[] }).tickets.map((x) => x.id);
}

export interface Status {
  complete: boolean;
  status: string | null;
  next: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  redeliveries: number;
  processingPages: number;
  processingMsecs: number;
  messages: string[];
  outputName: string | null;
}

/**
 * Polls the status endpoint until the ticket is complete. The time limit only ends a test
 * that would otherwise hang: it is generous because a loaded machine renders slowly.
 */
export async function waitComplete(t: Client, token: string, id: string, timeoutMs = 180_000, tenant = 'acme', project = 'shop'): Promise<Status> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.fetch(`/rest/tenants/${tenant}/projects/${project}/tickets/${id}/status`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    const s = (await res.json()) as Status;
    if (s.complete) return s;
    if (Date.now() > deadline) throw new Error(`ticket ${id} not complete after ${timeoutMs} ms: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Downloads the PDF artifact of a ticket. */
export async function artifactPdf(t: Client, token: string, id: string, tenant = 'acme', project = 'shop'): Promise<Buffer> {
  const res = await t.fetch(`/rest/tenants/${tenant}/projects/${project}/tickets/${id}/artifact`, { token, headers: { accept: 'application/pdf' } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  return Buffer.from(await res.arrayBuffer());
}
