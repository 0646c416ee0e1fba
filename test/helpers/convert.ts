// Shared setup of the convert tests: a template whose page count and page size come from
// custom parameters, and small request helpers.
import assert from 'node:assert/strict';
import { readZip } from '../../src/zip/index.js';
import { putFile, submit, waitComplete, type Status } from './project.js';
import type { TestServer } from './server.js';

/** `custom=pages:<n>` pages (default 1), A4 unless `custom=w:<pt>` and `custom=h:<pt>` are given. */
export const pagesTemplate = `#let n = int(sys.inputs.at("custom.pages", default: "1"))
#let w = sys.inputs.at("custom.w", default: none)
#let h = sys.inputs.at("custom.h", default: none)
#set page(paper: "a4")
#set page(width: float(w) * 1pt, height: float(h) * 1pt, margin: 0pt) if w != none
#for i in range(n) {
  text(size: 24pt)[Page #(i + 1)]
  if i < n - 1 { pagebreak() }
}
`;

/** Stores the pages template as `master-documents/pages.typ` of acme/shop. */
export function putPagesTemplate(t: TestServer, admin: string): Promise<void> {
  return putFile(t, admin, 'tenants/acme/projects/shop/master-documents/pages.typ', pagesTemplate);
}

/** The query of a render with the pages template. */
export function pagesQuery(convert: string | undefined, pages = 1, extra = ''): string {
  const c = convert === undefined ? '' : `&convert=${encodeURIComponent(convert)}`;
  return `documentTemplate=pages&custom=pages:${pages}${c}${extra}`;
}

/** Submits asynchronously and waits for the ticket to complete. */
export async function renderAndWait(t: TestServer, jobs: string, query: string, project = 'shop'): Promise<{ id: string; status: Status & { outputName: string | null } }> {
  const [id] = await submit(t, jobs, '<data/>', { query, project });
  const status = (await waitComplete(t, jobs, id!, 60_000, 'acme', project)) as Status & { outputName: string | null };
  return { id: id!, status };
}

/** GETs a URL and returns status, content type and body bytes. */
export async function download(t: TestServer, token: string, path: string, accept: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await t.fetch(path, { token, headers: { accept } });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

/** The file entries of a ZIP, by name, in archive order. */
export async function zipEntries(zip: Buffer): Promise<Map<string, Buffer>> {
  const entries = await readZip(zip, { maxEntries: 10_000, maxBytes: 1 << 30 });
  const files = new Map<string, Buffer>();
  for (const e of entries) if (e.kind === 'file') files.set(e.name, e.data);
  return files;
}

/** Number of tickets stored (to show a refused request stored nothing). */
export async function ticketCount(t: TestServer): Promise<number> {
  const rows = await t.server.ctx.db.kysely.selectFrom('tickets').select('id').execute();
  return rows.length;
}

/** Asserts a 400 whose details name `convert`, with a matching message. */
export async function assertConvert400(res: Response, message: RegExp): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 400, text);
  const body = JSON.parse(text) as { message: string; details?: { field?: string }[] };
  assert.match(body.message, /^convert: /);
  assert.match(body.message, message);
  assert.equal(body.details?.[0]?.field, 'convert');
}
