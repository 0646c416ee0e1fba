import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { tickets, type TicketRow } from '../src/store/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver, type Reply } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const P = 'tenants/acme/projects/shop';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachStore('webhooks: failures and redelivery', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let r: Receiver;
  let reply: (url: string, index: number) => Reply = () => ({});
  // The service's clock: redelivery delays are reached by moving it, never by sleeping.
  let fakeNow = Date.now();
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 30, allowPrivateAddresses: ['127.0.0.1'] }, { now: () => fakeNow });
    tokens = await setupProject(t);
    r = await startReceiver((req, i) => reply(req.url, i));
  });
  after(async () => {
    await r.close();
    await t.close();
  });
  beforeEach(async () => {
    r.requests.length = 0;
    reply = () => ({});
    for (const step of ['upload', 'callback', 'error']) await putFile(t, tokens.admin, `${P}/${step}/config.ion`, '{}');
  });

  /** Polls the ticket row until `ready` holds and no worker holds it. */
  async function settled(id: string, ready: (row: TicketRow) => boolean, timeoutMs = 180_000): Promise<TicketRow> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = (await tickets.findTicket(t.server.ctx.db.kysely, id))!;
      if (ready(row) && row.lease_owner === null) return row;
      if (Date.now() > deadline) throw new Error(`ticket ${id} not settled: ${JSON.stringify({ ...row, input_inline: null })}`);
      await sleep(20);
    }
  }

  it('records each failure exactly, redelivers per redeliverOnError at its interval, then sends the error webhook once', async () => {
    await putFile(t, tokens.admin, `${P}/callback/config.ion`, '{ redeliverOnError: [ { codePattern: "4\\\\d\\\\d", maxRedeliveries: 0 }, { codePattern: "5\\\\d\\\\d", maxRedeliveries: 2, redeliverIntervalMillis: 60000 } ] }');
    reply = (url) => (url.startsWith('/flaky') ? { status: 503, body: 'down' } : {});
    const [id] = await submit(t, tokens.jobs, grid, { query: new URLSearchParams({ callback: `${r.url}/flaky/{ticket}`, error: `${r.url}/failed/{errorCode}` }).toString() });
    const line = (n: number) => new RegExp(`^HTTP \\[503\\] \\(\\d+ ms, ${r.requests[n]!.body.length} bytes sent, 4 bytes received\\)\\. POST ${r.url}/flaky/${id}$`);

    let row = await settled(id!, (x) => x.status === 'callback.failed' && x.redeliveries === 1);
    assert.equal(r.requests.length, 1);
    assert.equal(row.next, 'callback');
    assert.equal(row.error_code, '503');
    assert.equal(row.run_after, row.updated + 60_000, 'due after redeliverIntervalMillis');
    assert.match((JSON.parse(row.messages) as string[])[0]!, line(0));

    fakeNow += 59_000;
    // A newer ticket rendered and done proves the worker has claimed since the clock moved; had
    // the callback been due it would have been claimed first (it is older), so no waiting.
    const [probe] = await submit(t, tokens.jobs, grid);
    await waitComplete(t, tokens.jobs, probe!);
    assert.equal(r.requests.length, 1, 'not due before the interval');
    fakeNow += 1_000;
    row = await settled(id!, (x) => x.redeliveries === 2);
    assert.equal(r.requests.length, 2);
    assert.equal(row.next, 'callback');

    fakeNow += 60_000;
    await settled(id!, (x) => x.complete === 1);
    assert.deepEqual(
      r.requests.map((q) => q.url),
      [`/flaky/${id}`, `/flaky/${id}`, `/flaky/${id}`, '/failed/503'],
      'three attempts (two redeliveries), then the error webhook once',
    );
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'error.succeeded');
    assert.equal(s.redeliveries, 2);
    assert.equal(s.errorCode, '503');
    assert.equal(s.messages.length, 3);
    s.messages.forEach((m, i) => assert.match(m, line(i)));
    const body = JSON.parse(r.requests[3]!.body.toString()) as Record<string, string>;
    assert.equal(body.errorMessage, s.messages[2], 'the error webhook carries the last failure');
  });

  it('honours Retry-After over a shorter interval; a code no rule matches is terminal', async () => {
    await putFile(t, tokens.admin, `${P}/upload/config.ion`, '{ redeliverOnError: [ { codePattern: "429", maxRedeliveries: 1, redeliverIntervalMillis: 1000 } ] }');
    reply = (_url, i) => (i === 0 ? { status: 429, headers: { 'Retry-After': '120' }, body: '' } : { status: 404, body: 'gone' });
    const [id] = await submit(t, tokens.jobs, grid, { query: `upload=${encodeURIComponent(`${r.url}/busy`)}` });
    let row = await settled(id!, (x) => x.status === 'upload.failed');
    assert.equal(row.run_after, row.updated + 120_000, 'Retry-After: 120 wins over 1000 ms');
    fakeNow += 120_000;
    row = await settled(id!, (x) => x.complete === 1);
    assert.equal(row.status, 'upload.failed');
    assert.equal(row.error_code, '404');
    assert.equal(row.shipped, 0, 'a failed upload ships nothing');
    const messages = JSON.parse(row.messages) as string[];
    assert.match(messages[0]!, /^HTTP \[429\] \(\d+ ms, \d+ bytes sent, 0 bytes received\)\. PUT http:\/\/127\.0\.0\.1:\d+\/busy$/);
    assert.match(messages[1]!, /^HTTP \[404\] \(\d+ ms, \d+ bytes sent, 4 bytes received\)\. PUT /);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    await putFile(t, tokens.admin, `${P}/callback/config.ion`, `{ connections: [ { url: "${r.url}/slow", timeoutMillis: 400 } ] }`);
    reply = () => 'hang';
    const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${r.url}/slow`)}` });
    const row = await settled(id!, (x) => x.complete === 1);
    assert.equal(row.status, 'callback.failed');
    assert.equal(row.error_code, '504');
    const [message] = JSON.parse(row.messages) as string[];
    const m = /^HTTP \[timeout\] \((\d+) ms, (\d+) bytes sent, 0 bytes received\)\. POST http:\/\/127\.0\.0\.1:\d+\/slow \(no complete answer in time\)$/.exec(message!);
    assert.ok(m, message);
    // Never before the limit; after it, a loaded machine may be late to abort.
    assert.ok(Number(m[1]) >= 380 && Number(m[1]) < 30_000, `took ${m[1]} ms`);
    assert.equal(Number(m[2]), r.requests[0]!.body.length);
  });

  it('treats a redirect as a failure unless the connection follows redirects', async () => {
    reply = (url) => (url.startsWith('/old') ? { status: 302, headers: { Location: '/new' }, body: '' } : {});
    const [a] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${r.url}/old/a`)}` });
    const first = await settled(a!, (x) => x.complete === 1);
    assert.equal(first.status, 'callback.failed');
    assert.equal(first.error_code, '302');
    assert.match((JSON.parse(first.messages) as string[])[0]!, /^HTTP \[302\] \(\d+ ms, \d+ bytes sent, 0 bytes received\)\. POST http:\/\/127\.0\.0\.1:\d+\/old\/a$/);

    await putFile(t, tokens.admin, `${P}/callback/config.ion`, `{ connections: [ { url: "${r.url}/old", followRedirects: 1 } ] }`);
    r.requests.length = 0;
    const [b] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${r.url}/old/b`)}` });
    const second = await settled(b!, (x) => x.complete === 1);
    assert.equal(second.status, 'callback.succeeded');
    assert.deepEqual(r.requests.map((q) => `${q.method} ${q.url}`), ['POST /old/b', 'POST /new']);
    assert.ok(r.requests[1]!.body.equals(r.requests[0]!.body), 'the same body follows the redirect');
  });

  it('refuses loopback, link-local and metadata targets outside the allow-list, and says why', async () => {
    for (const target of [`http://127.0.0.2:${r.port}/x`, 'http://169.254.169.254/latest/meta-data/', `http://[::1]:${r.port}/x`]) {
      const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(target)}` });
      const row = await settled(id!, (x) => x.complete === 1);
      assert.equal(row.status, 'callback.failed', target);
      assert.equal(row.error_code, '403');
      const [message] = JSON.parse(row.messages) as string[];
      const host = new URL(target).hostname.replace(/^\[|\]$/g, '');
      assert.match(message!, /^HTTP \[refused\] \(\d+ ms, 0 bytes sent, 0 bytes received\)\. POST /);
      assert.ok(message!.includes(`POST ${target} (${host} resolves to ${host}, which is not a public address (add it to PRESSROOM_ALLOW_PRIVATE_ADDRESSES to allow it))`), message);
    }
    assert.equal(r.requests.length, 0);
  });

  it('refreshes an OAuth2 token once after a 401 and sends again; the first 401 is not a failure', async () => {
    const forms: URLSearchParams[] = [];
    reply = (url) => {
      if (url === '/token') {
        forms.push(new URLSearchParams(r.requests.at(-1)!.body.toString()));
        return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: `tok-${forms.length}`, token_type: 'bearer', expires_in: 3600 }) };
      }
      return r.requests.at(-1)!.headers.authorization === 'Bearer tok-1' ? { status: 401, body: 'expired' } : {};
    };
    await putFile(
      t,
      tokens.admin,
      `${P}/callback/config.ion`,
      `{ connections: [ { url: "${r.url}/api/", authentication: { type: OAuth2, grantType: ClientCredentials, clientId: "cid", clientSecret: "csecret", scope: "hooks:write,extra", tokenUrl: "${r.url}/token" } } ] }`,
    );
    const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${r.url}/api/done`)}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.deepEqual(s.messages, []);
    assert.deepEqual(r.requests.map((q) => `${q.method} ${q.url} ${q.headers.authorization ?? ''}`.trim()), ['POST /token', 'POST /api/done Bearer tok-1', 'POST /token', 'POST /api/done Bearer tok-2']);
    assert.deepEqual(Object.fromEntries(forms[0]!), { client_id: 'cid', client_secret: 'csecret', grant_type: 'client_credentials', scope: 'hooks:write extra' });
    assert.equal(r.requests[0]!.headers['content-type'], 'application/x-www-form-urlencoded');
  });
});
