// POST …/preview through HTTP: pages as SVG or PNG with their text, compile errors with their
// places, the render time limit, size limits and authorization; no ticket, no statistics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imageFormat, imageSize } from './helpers/image-size.js';
import { tinyPng } from './helpers/png.js';
import { putFile, setupProject } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const sample = `<data>
  <item id="EM-2000">
    <title>Espresso machine EM-2000</title>
    <price currency="EUR">249.90</price>
    <image>images/photo.png</image>
    <features><feature>15 bar pump</feature><feature>milk frother</feature></features>
  </item>
</data>`;
// About 10^10 loop turns: runs until the time limit stops it, without using memory.
const endless = '#for i in range(100000) { for j in range(100000) { } }\nnever\n';
const MiB = 1024 * 1024;

interface Page {
  index: number;
  width: number;
  height: number;
  svg?: string;
  png?: string;
  text: string;
}
interface Preview {
  pages: Page[];
  compileMs: number;
  diagnostics: { file: string; line: number; column: number; message: string; severity: string }[];
}
interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: { field?: string; message: string }[];
  diagnostics?: Preview['diagnostics'];
}

describeEachStore('preview', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };

  const post = (body: unknown, opts: { token?: string | null; project?: string; contentType?: string; signal?: AbortSignal } = {}) =>
    t.fetch(`/rest/tenants/acme/projects/${opts.project ?? 'shop'}/preview`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': opts.contentType ?? 'application/json' },
      ...(opts.token === null ? {} : { token: opts.token ?? tokens.admin }),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  const preview = async (body: unknown, project = 'shop', token = tokens.admin): Promise<Preview> => {
    const res = await post(body, { project, token });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Preview;
  };
  const failure = async (res: Response, status: number, code: string): Promise<ErrorBody> => {
    const text = await res.text();
    assert.equal(res.status, status, text);
    const body = JSON.parse(text) as ErrorBody;
    assert.equal(body.code, code, text);
    assert.ok(body.message.length > 10, text);
    return body;
  };

  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  it('renders the default template over sample data as SVG pages with their text', async () => {
    const out = await preview({ data: sample, resources: { 'images/photo.png': tinyPng(120, 80).toString('base64') } });
    assert.equal(out.pages.length, 1);
    const [page] = out.pages;
    assert.equal(page!.index, 1);
    assert.ok(Math.abs(page!.width - 595.28) < 1 && Math.abs(page!.height - 841.89) < 1, `${page!.width} × ${page!.height}`);
    assert.match(page!.svg!, /^<svg [^>]*viewBox="0 0 \d+(\.\d+)? \d+(\.\d+)?"/);
    assert.match(page!.svg!, /<\/svg>$/);
    assert.match(page!.svg!, /<image /, 'the photo is placed');
    for (const text of ['Espresso machine EM-2000', '249.90', '15 bar pump', 'milk frother']) {
      assert.ok(page!.text.includes(text), `page text lacks ${text}:\n${page!.text}`);
      // The SVG's own text layer carries the words too (for selection and screen readers).
      assert.ok(page!.svg!.includes(text.split(' ')[0]!), `svg text layer lacks ${text}`);
    }
    assert.ok(out.compileMs >= 0);
    assert.deepEqual(out.diagnostics, []);
  });

  it('uses the stored template by name, with the repository files it imports', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/common.typ', '#let shout(s) = upper(s)\n');
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/sheet.typ', '#import "common.typ": shout\n#import "/pressroom/lib.typ": *\n#shout(text-of(first(load-data(), "item/title")))\n');
    const stored = await preview({ documentTemplate: 'sheet', data: sample });
    assert.match(stored.pages[0]!.text, /ESPRESSO MACHINE EM-2000/);
    // The edited source wins over the stored one, under the same name (relative imports work).
    const edited = await preview({ documentTemplate: 'sheet', template: '#import "common.typ": shout\n#shout("typed") and #sys.inputs.ticket', data: sample });
    assert.match(edited.pages[0]!.text, /TYPED and preview/);
    const missing = await post({ documentTemplate: 'nothing', data: sample });
    assert.equal(((await failure(missing, 400, 'bad_request')).details ?? [])[0]?.field, 'documentTemplate');
  });

  it('answers one page per page, each with its own text, and JSON data', async () => {
    const template = '#set page(width: 200pt, height: 150pt)\n#import "/pressroom/lib.typ": *\n#for (i, x) in load-data().items.enumerate() { if i > 0 { pagebreak() }; [Item #x] }\n';
    const out = await preview({ template, data: JSON.stringify({ items: ['alpha', 'beta', 'gamma'] }), dataType: 'json' });
    assert.deepEqual(out.pages.map((p) => [p.index, p.width, p.height, p.text]), [
      [1, 200, 150, 'Item alpha'],
      [2, 200, 150, 'Item beta'],
      [3, 200, 150, 'Item gamma'],
    ]);
    for (const p of out.pages) assert.ok(!p.svg!.includes('alpha') || p.index === 1, 'each page carries only its own content');
  });

  it('renders PNG pages at the asked resolution', async () => {
    const out = await preview({ template: '#set page(width: 144pt, height: 72pt)\nHello PNG', format: 'png', resolution: 72 });
    const png = Buffer.from(out.pages[0]!.png!, 'base64');
    assert.equal(imageFormat(png), 'png');
    assert.deepEqual(imageSize(png), { width: 144, height: 72 });
    assert.equal(out.pages[0]!.svg, undefined);
    assert.equal(out.pages[0]!.text, 'Hello PNG');
  });

  it('answers a compile error with 422 and the diagnostics at 1-based lines and columns', async () => {
    const body = await failure(await post({ template: '#let total = 1\n\n= Sum: #totl\n' }), 422, 'template_error');
    assert.deepEqual(body.diagnostics, [{ file: '/master-documents/default.typ', line: 3, column: 9, message: 'unknown variable: totl', severity: 'error' }]);
    const syntax = await failure(await post({ template: 'ok\n#let (x = 1\n' }), 422, 'template_error');
    assert.ok(syntax.diagnostics!.some((d) => d.line === 2 && d.severity === 'error'), JSON.stringify(syntax.diagnostics));
    // An error inside the helper library names that file, and the call in the template.
    const deep = await failure(await post({ template: '#import "/pressroom/lib.typ": *\n\n#children(none, tag: 1).at(5)\n' }), 422, 'template_error');
    assert.ok(deep.diagnostics!.some((d) => d.file === '/master-documents/default.typ' && d.line === 3), JSON.stringify(deep.diagnostics));
    // The sandbox: no files of the server, no packages.
    await failure(await post({ template: '#read("/etc/passwd")' }), 422, 'template_error');
    await failure(await post({ template: '#import "@preview/tablex:0.0.8": tablex\n' }), 422, 'template_error');
  });

  it('reports warnings of a successful compile', async () => {
    const out = await preview({ template: 'Hello\n#set text(font: "No Such Font Family")\nworld' });
    assert.equal(out.pages[0]!.text, 'Hello world');
    assert.ok(out.diagnostics.some((d) => d.severity === 'warning' && d.line === 2 && /font/.test(d.message)), JSON.stringify(out.diagnostics));
  });

  it('stops a template that loops forever at the time limit with 504, staying responsive', async () => {
    const slow = await setupProject(t, 'acme', 'slow');
    await putFile(t, slow.admin, 'tenants/acme/projects/slow/renderpdf/config.ion', '{ maxExecutionMillis: 2500 }');
    const started = Date.now();
    const pending = post({ template: endless }, { project: 'slow', token: slow.admin });
    // The service answers other requests while the preview runs.
    const health = await t.fetch('/healthz', { headers: { accept: '*/*' } });
    assert.equal(health.status, 200);
    assert.ok((await t.fetch('/rest/tenants/acme/projects/slow/ticket-history', { token: slow.admin })).ok);
    const res = await pending;
    assert.ok(Date.now() - started >= 2400, 'stopped at the limit, not before');
    const body = await failure(res, 504, 'template_timeout');
    assert.match(body.message, /2500 ms/);
    // The stopped process is replaced: the next preview works.
    // (In another project: a fresh process's start counts against this project's short limit.)
    const after = await preview({ template: 'fine again' });
    assert.equal(after.pages[0]!.text, 'fine again');
  });

  it('frees the render process soon when the client goes away', async () => {
    const slow = await setupProject(t, 'acme', 'patient');
    await putFile(t, slow.admin, 'tenants/acme/projects/patient/renderpdf/config.ion', '{ maxExecutionMillis: 600000 }');
    const abort = new AbortController();
    const gone = post({ template: endless }, { project: 'patient', token: slow.admin, signal: abort.signal }).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 500));
    abort.abort();
    assert.ok((await gone) instanceof Error);
    const started = Date.now();
    const next = await preview({ template: 'next one' }, 'patient', slow.admin);
    assert.equal(next.pages[0]!.text, 'next one');
    assert.ok(Date.now() - started < 60_000, 'the next preview did not wait for the ten-minute limit');
  });

  it('creates no ticket and counts no statistics', async () => {
    await preview({ data: sample });
    const open = await t.fetch('/rest/tenants/acme/projects/shop/tickets', { token: tokens.admin });
    assert.deepEqual(await open.json(), []);
    const history = await t.fetch('/rest/tenants/acme/projects/shop/ticket-history', { token: tokens.admin });
    assert.deepEqual(((await history.json()) as { tickets: unknown[] }).tickets, []);
    const stats = await t.fetch('/rest/statistics/tenants/acme/projects/shop?unit=day', { token: tokens.admin });
    assert.equal(stats.status, 200);
    const rows = (await stats.json()) as Record<string, unknown>[];
    for (const row of rows) for (const [key, value] of Object.entries(row)) if (typeof value === 'number') assert.equal(value, 0, `statistics ${key}`);
  });

  it('refuses requests over the size limits with 413', async () => {
    await failure(await post({ template: 'x'.repeat(MiB + 1) }), 413, 'payload_too_large');
    await failure(await post({ data: `<data>${'x'.repeat(10 * MiB)}</data>` }), 413, 'payload_too_large');
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`images/${i}.png`, 'AAAA']));
    await failure(await post({ resources: many }), 413, 'payload_too_large');
    const big = Buffer.alloc(3 * MiB, 7).toString('base64');
    const heavy = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`images/${i}.bin`, big]));
    const body = await failure(await post({ resources: heavy }), 413, 'payload_too_large');
    assert.match(body.message, /resources/);
    // Over the request limit itself: refused before it is parsed.
    await failure(await post(`{"template":"${'y'.repeat(33 * MiB)}"}`), 413, 'payload_too_large');
    // The service is fine afterwards.
    assert.equal((await preview({ template: 'small' })).pages[0]!.text, 'small');
  });

  it('answers bad requests with 400, 401, 403, 404 and 415', async () => {
    for (const [body, field] of [
      ['{"template": ', 'body'],
      [{ template: { source: 'x' } }, 'template'],
      [{ dataType: 'csv' }, 'dataType'],
      [{ format: 'gif' }, 'format'],
      [{ resolution: 5000 }, 'resolution'],
      [{ unknown: true }, 'unknown'],
      [{ resources: { '../etc/passwd': 'AAAA' } }, 'resources'],
      [{ resources: { 'images/a.png': 'not base64!' } }, 'resources'],
      [{ data: '<data><open></data>' }, 'data'],
      [{ data: '<!DOCTYPE x [<!ENTITY e "e">]><x>&e;</x>' }, 'data'],
      [{ data: '{"a":', dataType: 'json' }, 'data'],
    ] as const) {
      const res = await post(body);
      const text = await res.text();
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${text}`);
      const parsed = JSON.parse(text) as ErrorBody;
      assert.ok(parsed.details?.some((d) => (d.field ?? '').startsWith(field) || d.message.includes(field)), `${JSON.stringify(body)}: ${text}`);
    }
    await failure(await post({ template: 'x' }, { token: null }), 401, 'unauthorized');
    await failure(await post({ template: 'x' }, { token: tokens.jobs }), 403, 'forbidden');
    const other = await setupProject(t, 'acme', 'other');
    await failure(await post({ template: 'x' }, { token: other.admin }), 403, 'forbidden');
    const gone = await setupProject(t, 'acme', 'gone');
    assert.equal((await t.fetch('/rest/tenants/acme/projects/gone', { method: 'DELETE', token: tokens.op })).status, 200);
    // A token outliving its project is revoked.
    await failure(await post({ template: 'x' }, { token: gone.admin, project: 'gone' }), 401, 'unauthorized');
    await failure(await post('<data/>', { contentType: 'application/xml' }), 415, 'unsupported_media_type');
    // The operator may preview in any project.
    const res = await t.fetch('/rest/tenants/acme/projects/shop/preview', { method: 'POST', token: tokens.op, body: JSON.stringify({ template: 'operator' }), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200);
  });
});

describe('preview time limit without a project limit', () => {
  let t: TestServer;
  let admin: string;
  before(async () => {
    // Renders may run for ten minutes (the default); previews here get three seconds.
    t = await startTestServer('sqlite', { renderThreads: 1, previewTimeoutMs: 3000 });
    ({ admin } = await setupProject(t));
  });
  after(() => t.close());

  const post = (template: string) =>
    t.fetch('/rest/tenants/acme/projects/shop/preview', { method: 'POST', body: JSON.stringify({ template }), headers: { 'content-type': 'application/json' }, token: admin });

  it('stops a preview at PRESSROOM_PREVIEW_TIMEOUT_MS, not at the longer render limit', async () => {
    assert.equal(t.server.ctx.settings.renderTimeoutMs, 600_000);
    // A first preview starts the preview process, so its start does not count against the limit.
    assert.equal((await post('warm')).status, 200);
    const started = Date.now();
    const res = await post(endless);
    const body = (await res.json()) as ErrorBody;
    assert.equal(res.status, 504, JSON.stringify(body));
    assert.equal(body.code, 'template_timeout');
    assert.match(body.message, /3000 ms/);
    assert.ok(Date.now() - started >= 2900, 'stopped at the limit, not before');
  });
});
