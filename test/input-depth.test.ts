import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setupProject, submit } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

/** The documented nesting limit of XML and JSON input (docs/rendering.md). */
const LIMIT = 256;

const deepXml = (depth: number) => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;
const deepJson = (depth: number) => {
  let s = '1';
  for (let i = 0; i < depth; i++) s = i % 2 === 0 ? `[${s}]` : `{"k":${s}}`;
  return s;
};

describeEachStore('input nesting depth', (kind) => {
  let t: TestServer;
  let jobs: string;
  before(async () => {
    // No worker: this is about intake, and accepted tickets need not render.
    t = await startTestServer(kind, { role: 'api' });
    jobs = (await setupProject(t)).jobs;
  });
  after(() => t.close());

  const post = (body: string | Buffer, contentType: string) =>
    t.fetch('/rest/tenants/acme/projects/shop/renderpdf', { method: 'POST', token: jobs, body, headers: { 'content-type': contentType } });
  const open = async () => ((await (await t.fetch('/rest/tenants/acme/projects/shop/tickets', { token: jobs })).json()) as string[]).length;
  const refused = async (res: Response, code: string, what: RegExp) => {
    const body = (await res.json()) as { status: number; code: string; message: string; details: { field?: string; message: string }[] };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.code, code);
    assert.match(body.message, what);
    assert.match(body.message, new RegExp(`deeper than ${LIMIT} levels`));
    assert.equal(body.details[0]!.field, 'body');
  };

  it(`refuses XML nested deeper than ${LIMIT} levels with 400 (200 000 deep crashed the render process)`, async () => {
    const before = await open();
    await refused(await post(deepXml(200_000), 'application/xml'), 'invalid_xml', /^XML input/);
    await refused(await post(deepXml(LIMIT + 1), 'application/xml'), 'invalid_xml', /^XML input/);
    assert.equal(await open(), before, 'nothing stored');
    // At the limit, and wide rather than deep, is fine.
    assert.equal((await submit(t, jobs, deepXml(LIMIT))).length, 1);
    assert.equal((await submit(t, jobs, `<data>${'<item><a><b/></a></item>'.repeat(5000)}</data>`)).length, 1);
  });

  it(`refuses JSON nested deeper than ${LIMIT} levels with 400, counting only brackets outside strings`, async () => {
    const before = await open();
    await refused(await post(deepJson(200_000), 'application/json'), 'bad_request', /^JSON input/);
    await refused(await post(deepJson(LIMIT + 1), 'application/json'), 'bad_request', /^JSON input/);
    assert.equal(await open(), before, 'nothing stored');
    assert.equal((await submit(t, jobs, deepJson(LIMIT), { contentType: 'application/json' })).length, 1);
    // Brackets inside strings (escaped quotes included) are text, not nesting.
    const text = JSON.stringify({ note: `\\"${'[{'.repeat(5000)}`, list: [1, [2, { three: '"]]]' }]] });
    assert.equal((await submit(t, jobs, text, { contentType: 'application/json' })).length, 1);
  });

  it('refuses data.xml and data.json inside a ZIP nested too deep', async () => {
    const before = await open();
    await refused(await post(await zipOf({ 'data.xml': deepXml(LIMIT + 1) }), 'application/zip'), 'invalid_xml', /^data\.xml in the ZIP/);
    await refused(await post(await zipOf({ 'data.json': deepJson(LIMIT + 1) }), 'application/zip'), 'bad_request', /^data\.json in the ZIP/);
    assert.equal(await open(), before, 'nothing stored');
    assert.equal((await submit(t, jobs, await zipOf({ 'data.xml': deepXml(LIMIT) }), { contentType: 'application/zip' })).length, 1);
  });
});
