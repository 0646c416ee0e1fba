import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { pdfText } from './helpers/pdf.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';
import { setupProject } from './helpers/project.js';
import { describeEachStore } from './helpers/stores.js';

// A client as a user of the service would make one: types generated from /rest/openapi.json with
// openapi-typescript, calls through openapi-fetch. The client code below is type-checked against
// the generated types with the TypeScript compiler, then run against a started server.

const root = fileURLToPath(new URL('..', import.meta.url));

const clientSource = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type RenderResult = components['schemas']['RenderResult'];
export type TicketStatusView = components['schemas']['TicketStatusView'];

/** The calls the test makes, each typed by the generated document. */
export function pressroomClient(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  const bearer = (token: string) => ({ authorization: 'Bearer ' + token });
  return {
    async token(tenant: string, username: string, password: string, project: string, scope: 'jobs' | 'admin'): Promise<string> {
      const { data, error } = await client.POST('/auth/{tenant}/tokens', {
        params: { path: { tenant } },
        body: { username, password, project, scope },
        bodySerializer: (form) => new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      });
      if (!data) throw new Error('token refused: ' + JSON.stringify(error));
      return data.access_token;
    },
    async renderPdfSync(token: string, tenant: string, project: string, xml: string): Promise<{ status: number; pdf: ArrayBuffer }> {
      const { data, response } = await client.POST('/rest/tenants/{tenant}/projects/{project}/renderpdf', {
        params: { path: { tenant, project }, query: { timeToWait: 60000 } },
        body: xml,
        bodySerializer: (body) => body as string,
        headers: { ...bearer(token), 'content-type': 'application/xml', accept: 'application/pdf' },
        parseAs: 'arrayBuffer',
      });
      if (!data) throw new Error('renderpdf answered ' + response.status);
      return { status: response.status, pdf: data };
    },
    async renderPdfAsync(token: string, tenant: string, project: string, xml: string): Promise<{ status: number; result: RenderResult }> {
      const { data, error, response } = await client.POST('/rest/tenants/{tenant}/projects/{project}/renderpdf', {
        params: { path: { tenant, project } },
        body: xml,
        bodySerializer: (body) => body as string,
        headers: { ...bearer(token), 'content-type': 'application/xml', accept: 'application/json' },
      });
      // 408 (synchronous mode past timeToWait) answers a RenderResult too, so an error is either shape.
      if (error) throw new Error('renderpdf refused: ' + JSON.stringify(error));
      if (typeof data !== 'object' || data === null || !('tickets' in data)) throw new Error('no RenderResult');
      return { status: response.status, result: data };
    },
    async status(token: string, tenant: string, project: string, ticket: string): Promise<TicketStatusView> {
      const { data, error } = await client.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/status', {
        params: { path: { tenant, project, ticket } },
        headers: bearer(token),
      });
      if (!data) throw new Error(error.code + ': ' + error.message);
      return data;
    },
  };
}
`;

interface Client {
  token(tenant: string, username: string, password: string, project: string, scope: 'jobs' | 'admin'): Promise<string>;
  renderPdfSync(token: string, tenant: string, project: string, xml: string): Promise<{ status: number; pdf: ArrayBuffer }>;
  renderPdfAsync(token: string, tenant: string, project: string, xml: string): Promise<{ status: number; result: { tickets: { id: string }[] } }>;
  status(token: string, tenant: string, project: string, ticket: string): Promise<{ complete: boolean; status: string | null; ticket: string }>;
}

/** The compiler's complaints about the generated types and the client, as readable lines. */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    noUncheckedIndexedAccess: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

const grid = '<data><item><title>Generated client sheet</title></item></data>';

describeEachStore('a client generated from /rest/openapi.json', (kind) => {
  let t: TestServer;
  let dir: string;
  let client: Client;
  before(async () => {
    t = await startTestServer(kind);
    await setupProject(t);
    // Under node_modules/.cache so the generated files resolve openapi-fetch like a user's project would.
    await mkdir(join(root, 'node_modules', '.cache'), { recursive: true });
    dir = await mkdtemp(join(root, 'node_modules', '.cache', 'pressroom-client-'));
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('generates TypeScript types with openapi-typescript, and the client code type-checks against them', async () => {
    const res = await fetch(`${t.url}/rest/openapi.json`);
    assert.equal(res.status, 200);
    const types = astToString(await openapiTS((await res.json()) as Parameters<typeof openapiTS>[0]));
    assert.match(types, /"\/rest\/tenants\/\{tenant\}\/projects\/\{project\}\/renderpdf"/);
    await writeFile(join(dir, 'schema.d.ts'), types);
    await writeFile(join(dir, 'client.ts'), clientSource);
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
    assert.deepEqual(typeErrors([join(dir, 'client.ts')]), []);
    // A wrong call does not compile: the types carry the document's paths and parameters.
    await writeFile(join(dir, 'wrong.ts'), `import createClient from 'openapi-fetch';\nimport type { paths } from './schema.js';\nawait createClient<paths>({}).POST('/rest/tenants/{tenant}/projects/{project}/renderpdf', { params: { path: { tenant: 'a' } }, body: '' });\n`);
    assert.ok(typeErrors([join(dir, 'wrong.ts')]).some((e) => /project/.test(e)), 'a missing path parameter is a type error');
    client = ((await import(pathToFileURL(join(dir, 'client.ts')).href)) as { pressroomClient(url: string): Client }).pressroomClient(t.url);
  });

  it('gets a token, posts XML to renderpdf in synchronous mode and receives the PDF', async () => {
    const token = await client.token('acme', 'admin', ADMIN_PASSWORD, 'shop', 'jobs');
    const { status, pdf } = await client.renderPdfSync(token, 'acme', 'shop', grid);
    assert.equal(status, 200);
    const bytes = Buffer.from(pdf);
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.match((await pdfText(bytes)).join(''), /Generated client sheet/);
  });

  it('posts asynchronously and reads the RenderResult, then the ticket status', async () => {
    const token = await client.token('acme', 'admin', ADMIN_PASSWORD, 'shop', 'jobs');
    const { status, result } = await client.renderPdfAsync(token, 'acme', 'shop', grid);
    assert.equal(status, 202);
    assert.equal(result.tickets.length, 1);
    const id = result.tickets[0]!.id;
    const view = await client.status(token, 'acme', 'shop', id);
    assert.equal(view.ticket, id);
  });
});
