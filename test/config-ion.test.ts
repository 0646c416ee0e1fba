import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { repoFiles } from '../src/store/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';

async function snapshot(t: TestServer): Promise<string> {
  const rows = await repoFiles.listRepoFiles(t.server.ctx.db.kysely, '');
  const blobs = await t.server.ctx.blobs.list('repo/');
  return JSON.stringify({ rows: rows.map((r) => [r.path, r.sha256, r.updated]), blobs });
}

const valid: [string, string][] = [
  [
    'restapi/config.ion',
    `// comments are fine
    { uploadUrl: "https://dam.example.com/up/{ticket} https://backup.example.com/up", callbackUrl: null, documentTemplate: "offer",
      transform: "to_grid.xslt", transformBefore: "prepare.xslt", fanout: { enabled: true, rootPath: "/data/item" }, 'fanout.itemType': "document",
      "aggregate.enabled": true, aggregate: { timeoutInSeconds: 1800 }, keepInputForSeconds: 86400, inputBufferSize: 65536, outputType: pdf,
      convert: "f=png;r=150", quota: { ticketsPerMonth: 1000 }, maxParallelRenders: 2 }`,
  ],
  ['restapi/config-fast.ion', '{ inputBufferSize: 4194304 }'],
  [
    'renderpdf/config.ion',
    `{ documentTemplate: "default", keepOutput: onsuccess, keepOutputForSeconds: 3600, keepOutputUntil: shippedOrExpired, keepLog: "onerror",
      keepLogForSeconds: 0, keepLogUntil: forever, pdfStandard: "a-2b", maxExecutionMillis: 60000,
      redeliverOnError: [ { codePattern: "5\\\\d\\\\d", maxRedeliveries: 1, redeliverIntervalMillis: 1000, maxAgeMillis: 0 } ] }`,
  ],
  [
    'renderpptx/config.ion',
    `{ documentTemplate: "deck", maxExecutionMillis: 3600000, pptxLog: enableLogOnError, keepExistingSlides: false, insertNewSlidesAfter: 2,
      mapPlaceholdersByName: true, allowMultipleShapesPerName: true, preferredView: "normal", redeliverOnError: [] }`,
  ],
  [
    'upload/config.ion',
    `{ connections: [
        { url: "https://dam.example.com/", method: POST, 'use-chunked-transfer': false, uploadType: "dam", scope: "asset:write",
          authentication: { type: OAuth2, grantType: ClientCredentials, clientId: "id", clientSecret: { sealed: "c2VjcmV0" }, tokenUrl: "https://dam.example.com/token" },
          exportParams: [ { name: "assetId", source: jsonBody, path: "/id" } ], headers: { "X-Trace.Id": "1" } },
        { url: "https://files.example.com/", authentication: { type: ApiKey, key: "X-Api-Key", value: "{sealed:abc}" }, payload: [ { value: "{ticket}" } ] } ],
      redeliverOnError: [ { maxRedeliveries: 2 } ] }`,
  ],
  ['callback/config.ion', '{ connections: [ { url: "https://hooks.example.com/cb", method: PUT, headers: { Authorization: "{sealed:xyz}" } } ] }'],
  ['error/config.ion', '{ connections: [ { url: "https://hooks.example.com/err", payload: [ { value: "{\\"m\\": \\"${errorMessage}\\"}" } ] } ] }'],
  ['restapi/config.ion', ''],
  ['other/settings.ion', '{ anything: goes, nested: [1, 2.5, 2020-01-01T] } second::value'],
];

const invalid: [string, string, string, RegExp][] = [
  ['restapi/config.ion', '{ keepInputForSeconds: ', '', /not valid Ion/],
  ['notes/free.ion', '{ a: [1, 2 }', '', /not valid Ion/],
  ['restapi/config.ion', '{ keepInputForSeconds: 30 }', 'keepInputForSeconds', /from 60 to 86400/],
  ['restapi/config.ion', '{ inputBufferSize: "big" }', 'inputBufferSize', /must be an integer/],
  ['restapi/config.ion', '{ inputBufferSize: 5000000 }', 'inputBufferSize', /from 65536 to 4194304/],
  ['restapi/config.ion', '{ fanout: { rootPath: 5 } }', 'fanout.rootPath', /must be a string/],
  ['restapi/config.ion', '{ "fanout.rootPath": 5 }', 'fanout.rootPath', /must be a string/],
  ['restapi/config.ion', '{ fanout: { enabeld: true } }', 'fanout.enabeld', /did you mean enabled/],
  ['restapi/config.ion', '{ fanout: { enabled: true }, "fanout.enabled": false }', 'fanout.enabled', /given twice/],
  ['restapi/config.ion', '{ keepInputForSeconds: 60, keepInputForSeconds: 70 }', 'keepInputForSeconds', /appears twice/],
  ['restapi/config.ion', '{ transform: "../evil.xslt" }', 'transform', /name\.xslt/],
  ['restapi/config.ion', '{ outputType: docx }', 'outputType', /one of pdf/],
  ['restapi/config.ion', '{ aggregate: { timeoutInSeconds: 30000 } }', 'aggregate.timeoutInSeconds', /to 21600/],
  ['restapi/config.ion', '{ callbackUrl: "not a url" }', 'callbackUrl', /absolute URL/],
  ['restapi/config.ion', '{ "__proto__": { polluted: true } }', '__proto__', /unknown property/],
  ['restapi/config.ion', '[1, 2]', '', /struct/],
  ['restapi/config.ion', '{} {}', '', /2 top-level values/],
  ['restapi/config-fast.ion', '{ fanout: true }', 'fanout', /must be a struct/],
  ['renderpdf/config.ion', '{ pdfStandard: "a-9z" }', 'pdfStandard', /one of 1\.4/],
  ['renderpdf/config.ion', '{ keepOutputForSeconds: -1 }', 'keepOutputForSeconds', /from 0/],
  ['renderpptx/config.ion', '{ redeliverOnError: [ { codePattern: "(a" } ] }', 'redeliverOnError[0].codePattern', /not a valid regular expression/],
  ['renderpptx/config.ion', '{ keepExistingSlides: "yes" }', 'keepExistingSlides', /true or false/],
  ['upload/config.ion', '{ connections: [ { method: POST } ] }', 'connections[0].url', /is required/],
  ['upload/config.ion', '{ connections: [ { url: "ftp://x.example.com/" } ] }', 'connections[0].url', /not an http or https URL/],
  ['upload/config.ion', '{ connections: [ { url: "https://x.example.com/", authentication: { type: ApiKey, key: "X-Key" } } ] }', 'connections[0].authentication.value', /required for type ApiKey/],
  ['upload/config.ion', '{ connections: [ { url: "https://x.example.com/", authentication: { type: ApiKey, key: "k", value: 42 } } ] }', 'connections[0].authentication.value', /sealed value/],
  ['callback/config.ion', '{ connections: [ { url: "https://x.example.com/", exportParams: [] } ] }', 'connections[0].exportParams', /unknown property/],
  ['error/config.ion', '{ redeliverOnError: [ { maxRedeliveries: -1 } ] }', 'redeliverOnError[0].maxRedeliveries', /from 0/],
];

describeEachStore('config.ion validation on write', (kind) => {
  let t: TestServer;
  let op: string;
  before(async () => {
    t = await startTestServer(kind);
    op = await t.operatorToken();
    for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop']) {
      assert.equal((await t.fetch(path, { method: 'POST', token: op })).status, 200);
    }
  });
  after(() => t.close());

  const put = (path: string, body: string) => t.fetch(`/rest/repository/files/${path}`, { method: 'PUT', token: op, body, headers: { 'content-type': 'application/ion' } });

  it('accepts every documented property, nested or dotted, with sealed secrets, at every level', async () => {
    for (const [file, text] of valid) {
      for (const prefix of ['', 'tenants/acme/', `${P}/`]) {
        const res = await put(prefix + file, text);
        assert.equal(res.status, 200, `${prefix}${file}: ${await res.text()}`);
      }
    }
  });

  it('refuses invalid Ion and wrong, unknown or out-of-range properties with 400 naming them', async () => {
    for (const [file, text, field, message] of invalid) {
      const before = await snapshot(t);
      const path = `${P}/${file}`;
      const res = await put(path, text);
      const body = (await res.json()) as { code: string; message: string; details: { field?: string; message: string }[] };
      assert.equal(res.status, 400, `${file} ${text}: ${body.message}`);
      assert.equal(body.code, 'invalid_config', text);
      assert.ok(body.message.startsWith(`${path}: `), body.message);
      if (field) {
        assert.equal(body.details[0]!.field, field, `${text}: ${JSON.stringify(body.details)}`);
        assert.ok(body.message.includes(field), body.message);
      }
      assert.match(body.details[0]!.message, message, text);
      assert.equal(await snapshot(t), before, text);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('reports every problem of a file together', async () => {
    const res = await put(`${P}/restapi/config.ion`, '{ keepInputForSeconds: 1, outputType: docx, fanot: {} }');
    const body = (await res.json()) as { message: string; details: { field: string }[] };
    assert.deepEqual(body.details.map((d) => d.field).sort(), ['fanot', 'keepInputForSeconds', 'outputType']);
    assert.match(body.message, /and 2 more problems/);
  });

  it('checks files whose folder is a step at any depth, and leaves other files alone', async () => {
    assert.equal((await put(`${P}/archive/2024/restapi/config.ion`, '{ bogus: 1 }')).status, 400);
    assert.equal((await put(`${P}/restapi/config-bad name.ion`, '{ bogus: 1 }')).status, 200, 'not a profile name: plain Ion');
    assert.equal((await put(`${P}/restapi/config.json`, '{ not ion at all')).status, 200);
  });
});
