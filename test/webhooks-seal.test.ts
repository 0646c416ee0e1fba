import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { isSealed, seal, unseal } from '../src/config/sealed.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const P = 'tenants/acme/projects/shop';

/** Runs `pressroom seal …` as a child process with only the given PRESSROOM_* variables. */
function sealCli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PRESSROOM_') && !k.startsWith('NODE_TEST'))) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'seal', ...args], { cwd: root, env: { ...base, PRESSROOM_LOG_LEVEL: 'silent', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('sealed values', () => {
  it('round-trips under the key, refuses another key or an altered value, and leaves plain strings alone', () => {
    const key = randomBytes(32);
    const sealed = seal(key, 'api-key-äöü');
    assert.ok(isSealed(sealed));
    assert.ok(!sealed.includes('api-key'));
    assert.equal(unseal(key, sealed), 'api-key-äöü');
    assert.notEqual(seal(key, 'x'), seal(key, 'x'), 'a random IV per seal');
    assert.throws(() => unseal(randomBytes(32), sealed), /cannot be opened/);
    const altered = sealed.slice(0, 20) + (sealed[20] === 'A' ? 'B' : 'A') + sealed.slice(21);
    assert.throws(() => unseal(key, altered), /cannot be opened|malformed/);
    assert.equal(unseal(key, 'plain'), 'plain');
  });

  it('pressroom seal prints a value that opens under PRESSROOM_SEAL_KEY; bad input exits 2', async () => {
    const key = randomBytes(32);
    const run = await sealCli(['--stdin'], { PRESSROOM_SEAL_KEY: key.toString('base64') }, 's3cret-value\n');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\{sealed:[A-Za-z0-9_-]+\}\n$/);
    assert.equal(unseal(key, run.stdout.trim()), 's3cret-value');
    assert.equal((await sealCli([], { PRESSROOM_SEAL_KEY: key.toString('base64') })).code, 2);
    const badKey = await sealCli(['x'], { PRESSROOM_SEAL_KEY: 'too-short' });
    assert.equal(badKey.code, 2);
    assert.match(badKey.stderr, /PRESSROOM_SEAL_KEY must be the base64 encoding of 32 bytes/);
  });
});

describeEachStore('webhooks: sealed secrets stay secret', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let r: Receiver;
  const logs: string[] = [];
  const API_KEY = `api-key-${randomBytes(6).toString('hex')}`;
  const HEADER_SECRET = `hdr-${randomBytes(6).toString('hex')}`;
  const SIGNING = `whsec_${randomBytes(24).toString('base64')}`;
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 30, allowPrivateAddresses: ['127.0.0.1'], profiles: ['trace'] }, { logger: pino({ level: 'trace' }, sink) });
    tokens = await setupProject(t);
    // An echoing receiver that fails: with `trace`, its body (our headers) reaches the messages.
    r = await startReceiver((req) => ({ status: 500, body: JSON.stringify(req.headers) }));
  });
  after(async () => {
    await r.close();
    await t.close();
  });

  it('uses values sealed by the CLI only in memory: absent from status, messages, logs and listings', async () => {
    const env = { PRESSROOM_DATA: t.settings.dataDir, ...(t.settings.databaseUrl ? { PRESSROOM_DATABASE_URL: t.settings.databaseUrl, PRESSROOM_DATABASE_SCHEMA: t.settings.databaseSchema } : {}) };
    const sealOne = async (v: string) => {
      const run = await sealCli(['--stdin'], env, v);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout.trim();
    };
    const [sealedKey, sealedHeader, sealedSigning] = [await sealOne(API_KEY), await sealOne(HEADER_SECRET), await sealOne(SIGNING)];
    await putFile(t, tokens.admin, `${P}/restapi/config.ion`, `{ webhookSecret: { sealed: "${sealedSigning.slice(8, -1)}" } }`);
    await putFile(
      t,
      tokens.admin,
      `${P}/callback/config.ion`,
      `{ connections: [ { url: "${r.url}/", authentication: { type: ApiKey, key: "X-Api-Key", value: "${sealedKey}" }, headers: { "X-Extra": "${sealedHeader}" } } ] }`,
    );
    const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${r.url}/hook`)}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.failed', JSON.stringify(s));

    const [req] = r.requests;
    assert.equal(req!.headers['x-api-key'], API_KEY, 'the receiver gets the opened value');
    assert.equal(req!.headers['x-extra'], HEADER_SECRET);
    assert.ok(req!.headers['webhook-signature'], 'signed with the sealed webhookSecret');
    assert.match(s.messages[0]!, /^HTTP \[500\] \(\d+ ms, \d+ bytes sent, \d+ bytes received\)\. POST http:\/\/127\.0\.0\.1:\d+\/hook\n\{/);
    assert.ok(s.messages[0]!.includes('"x-api-key":"[redacted]"'), 'trace shows the answer with secrets cut out');

    const listing = await (await t.fetch(`/rest/repository/files/${P}/callback/config.ion`, { token: tokens.admin })).text();
    const status = await (await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/status`, { token: tokens.jobs })).text();
    const tree = await (await t.fetch(`/rest/repository/tree/${P}`, { token: tokens.admin })).text();
    assert.ok(listing.includes(sealedKey), 'the repository keeps the sealed form');
    for (const [what, text] of [['status', status], ['logs', logs.join('')], ['repository file', listing], ['tree listing', tree]] as const) {
      for (const secret of [API_KEY, HEADER_SECRET, SIGNING]) assert.ok(!text.includes(secret), `${what} must not contain a secret`);
    }
    assert.ok(logs.length > 0, 'logs were captured');
  });

  it('fails a delivery whose sealed value cannot be opened, naming the field but no value', async () => {
    const foreign = seal(randomBytes(32), 'other-deployment-secret');
    await putFile(t, tokens.admin, `${P}/callback/config.ion`, `{ connections: [ { url: "${r.url}/", authentication: { type: ApiKey, key: "X-Api-Key", value: "${foreign}" } } ] }`);
    r.requests.length = 0;
    const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${r.url}/hook`)}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.failed');
    assert.equal(s.errorCode, '422');
    assert.equal(s.messages.at(-1), "authentication.value: sealed value cannot be opened with this deployment's key (sealed elsewhere, or altered)");
    assert.equal(r.requests.length, 0);
  });
});
