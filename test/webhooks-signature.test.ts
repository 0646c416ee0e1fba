import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { signatureHeaders, signingKey } from '../src/webhooks/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const P = 'tenants/acme/projects/shop';
const SECRET = 'whsec_' + Buffer.from('pressroom-test-signing-key-0123456789').toString('base64');

/**
 * A receiver's check, written from the Standard Webhooks specification alone (no pressroom
 * code): key = base64 after `whsec_`; signed content = `id.timestamp.` + raw body bytes;
 * `webhook-signature` holds space-separated `v1,<base64>` entries; timestamps within 5 minutes.
 */
function verify(secret: string, headers: IncomingHttpHeaders, body: Buffer, nowSec = Math.floor(Date.now() / 1000)): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigs = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sigs !== 'string') return false;
  if (!/^\d+$/.test(ts) || Math.abs(nowSec - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body])).digest();
  return sigs.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    const given = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe('webhook signatures (Standard Webhooks)', () => {
  it('matches the published test vector of the Standard Webhooks libraries', async () => {
    const headers = await signatureHeaders(signingKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, Buffer.from('{"test": 2432232314}'));
    assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    assert.equal(headers['webhook-timestamp'], '1614265330');
    assert.equal(headers['webhook-id'], 'msg_p5jXN8AQM9LWM0D4loKWxJek');
  });
});

describeEachStore('webhooks: signed requests', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let r: Receiver;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 30, allowPrivateAddresses: ['127.0.0.1'] });
    tokens = await setupProject(t);
    await putFile(t, tokens.admin, `${P}/restapi/config.ion`, `{ webhookSecret: "${SECRET}" }`);
    // The first callback fails once, so its redelivery can be compared with it.
    r = await startReceiver((req, i) => (req.url.startsWith('/cb/1') && i === 2 ? { status: 500 } : {}));
  });
  after(async () => {
    await r.close();
    await t.close();
  });

  it('signs uploads and callbacks verifiably, with a webhook-id kept across redeliveries', async () => {
    await putFile(t, tokens.admin, `${P}/callback/config.ion`, '{ redeliverOnError: [ { maxRedeliveries: 1 } ] }');
    const query = new URLSearchParams({ upload: `${r.url}/up/{ticket}`, callback: `${r.url}/cb/0 ${r.url}/cb/1` });
    const [id] = await submit(t, tokens.jobs, grid, { query: query.toString() });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.equal(s.redeliveries, 1);
    assert.deepEqual(r.requests.map((q) => q.url), [`/up/${id}`, '/cb/0', '/cb/1', '/cb/1'], 'the redelivery resumes after the delivered URL');
    for (const q of r.requests) assert.ok(verify(SECRET, q.headers, q.body), `${q.url}: signature verifies`);
    assert.ok(!verify(SECRET, r.requests[1]!.headers, Buffer.concat([r.requests[1]!.body, Buffer.from(' ')])), 'a changed body does not verify');
    assert.ok(!verify('whsec_' + Buffer.from('another key').toString('base64'), r.requests[1]!.headers, r.requests[1]!.body), 'another key does not verify');

    const ids = r.requests.map((q) => q.headers['webhook-id']);
    assert.equal(ids[2], ids[3], 'a redelivery keeps the webhook-id');
    assert.equal(new Set(ids).size, 3, 'upload, first and second callback URL differ');
    assert.equal(ids[0], `msg_${id}_upload_0`);
    assert.equal(ids[3], `msg_${id}_callback_1`);
    assert.ok(r.requests[0]!.body.subarray(0, 5).equals(Buffer.from('%PDF-')), 'the upload signature covers the PDF bytes');
  });
});
