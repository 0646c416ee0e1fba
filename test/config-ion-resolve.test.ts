import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { lookupRepositoryFile, readRepositoryBlob, resolveStepConfig } from '../src/repository/lookup.js';
import type { Context } from '../src/context.js';
import { AppError } from '../src/errors.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const T = 'tenants/acme';
const P = 'tenants/acme/projects/shop';

describeEachStore('config resolution', (kind) => {
  let t: TestServer;
  let op: string;
  let ctx: Context;
  before(async () => {
    t = await startTestServer(kind);
    ctx = t.server.ctx;
    op = await t.operatorToken();
    for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop', '/rest/tenants/acme/projects?name=other']) {
      assert.equal((await t.fetch(path, { method: 'POST', token: op })).status, 200);
    }
    const files: [string, string][] = [
      ['restapi/config.ion', '{ keepInputForSeconds: 600, callbackUrl: "https://global.example.com/cb", fanout: { enabled: false, rootPath: "/a" } }'],
      [`${T}/restapi/config.ion`, '{ fanout: { enabled: true }, "aggregate.enabled": true }'],
      [`${P}/restapi/config.ion`, '{ callbackUrl: null, "fanout.itemType": "doc" }'],
      ['restapi/config-fast.ion', '{ inputBufferSize: 131072 }'],
      [`${P}/restapi/config-fast.ion`, '{ keepInputForSeconds: 120 }'],
      [`${T}/restapi/config-slow.ion`, '{ keepInputForSeconds: 3600 }'],
      ['renderpdf/config.ion', '{ redeliverOnError: [ { maxRedeliveries: 1 }, { maxRedeliveries: 2 } ], keepOutput: always }'],
      [`${P}/renderpdf/config.ion`, '{ redeliverOnError: [ { codePattern: "504", maxRedeliveries: 0 } ] }'],
      [`${P}/upload/config.ion`, '{ connections: [ { url: "https://dam.example.com/", authentication: { type: OAuth2, grantType: ClientCredentials, clientId: "id", clientSecret: { sealed: "abc" } } } ] }'],
      ['master-documents/offer.typ', 'global'],
      [`${T}/master-documents/offer.typ`, 'tenant'],
      [`${P}/master-documents/offer.typ`, 'project'],
      [`${T}/master-documents/letter.typ`, 'tenant letter'],
    ];
    for (const [path, body] of files) {
      const res = await t.fetch(`/rest/repository/files/${path}`, { method: 'PUT', token: op, body });
      assert.equal(res.status, 200, `${path}: ${await res.text()}`);
    }
  });
  after(() => t.close());

  it('merges global, tenant and project: structs deep, null resets to the default', async () => {
    assert.deepEqual(await resolveStepConfig(ctx, 'restapi', 'acme', 'shop'), {
      keepInputForSeconds: 600,
      fanout: { enabled: true, rootPath: '/a', itemType: 'doc' },
      aggregate: { enabled: true },
    });
    assert.deepEqual(await resolveStepConfig(ctx, 'restapi', 'acme', 'other'), {
      keepInputForSeconds: 600,
      callbackUrl: 'https://global.example.com/cb',
      fanout: { enabled: true, rootPath: '/a' },
      aggregate: { enabled: true },
    });
  });

  it('applies restapi profiles in list order, each global → tenant → project', async () => {
    const fast = await resolveStepConfig(ctx, 'restapi', 'acme', 'shop', ['fast']);
    assert.equal(fast.inputBufferSize, 131072);
    assert.equal(fast.keepInputForSeconds, 120);
    assert.equal((await resolveStepConfig(ctx, 'restapi', 'acme', 'shop', ['fast', 'slow'])).keepInputForSeconds, 3600);
    assert.equal((await resolveStepConfig(ctx, 'restapi', 'acme', 'shop', ['slow', 'fast'])).keepInputForSeconds, 120);
    assert.equal((await resolveStepConfig(ctx, 'restapi', 'acme', 'shop', ['unknown'])).keepInputForSeconds, 600);
    await assert.rejects(resolveStepConfig(ctx, 'restapi', 'acme', 'shop', ['../x']), (err: unknown) => err instanceof AppError && err.code === 'bad_request');
  });

  it('replaces arrays, normalises sealed secrets, and treats missing files as empty', async () => {
    const pdf = await resolveStepConfig(ctx, 'renderpdf', 'acme', 'shop');
    assert.deepEqual(pdf, { redeliverOnError: [{ codePattern: '504', maxRedeliveries: 0 }], keepOutput: 'always' });
    const upload = await resolveStepConfig(ctx, 'upload', 'acme', 'shop');
    const [conn] = upload.connections as { authentication: { clientSecret: string } }[];
    assert.equal(conn!.authentication.clientSecret, '{sealed:abc}');
    assert.deepEqual(await resolveStepConfig(ctx, 'callback', 'acme', 'shop'), {});
    assert.deepEqual(await resolveStepConfig(ctx, 'renderpptx', 'ghost', 'none'), {});
  });

  it('sees a changed file at once, and callers cannot change the cached copy', async () => {
    const first = await resolveStepConfig(ctx, 'renderpdf', 'acme', 'shop');
    // Shared between callers and read-only: a change fails loudly instead of reaching the next caller.
    assert.throws(() => (first.redeliverOnError as unknown[]).push('mutated'), TypeError);
    assert.throws(() => Object.assign(first, { keepOutput: 'never' }), TypeError);
    assert.equal(((await resolveStepConfig(ctx, 'renderpdf', 'acme', 'shop')).redeliverOnError as unknown[]).length, 1);
    await t.fetch(`/rest/repository/files/${P}/renderpdf/config.ion`, { method: 'PUT', token: op, body: '{ keepOutput: never }' });
    assert.deepEqual(await resolveStepConfig(ctx, 'renderpdf', 'acme', 'shop'), { redeliverOnError: [{ maxRedeliveries: 1 }, { maxRedeliveries: 2 }], keepOutput: 'never' });
  });

  it('looks templates up project → tenant → global and reads their content', async () => {
    const offer = await lookupRepositoryFile(ctx, 'acme', 'shop', 'master-documents/offer.typ');
    assert.equal(offer?.path, `${P}/master-documents/offer.typ`);
    assert.equal((await readRepositoryBlob(ctx, offer!)).toString(), 'project');
    assert.equal((await lookupRepositoryFile(ctx, 'acme', 'other', 'master-documents/offer.typ'))?.path, `${T}/master-documents/offer.typ`);
    assert.equal((await lookupRepositoryFile(ctx, 'acme', 'shop', 'master-documents/letter.typ'))?.path, `${T}/master-documents/letter.typ`);
    assert.equal((await lookupRepositoryFile(ctx, 'zeta', 'x', 'master-documents/offer.typ'))?.path, 'master-documents/offer.typ');
    assert.equal(await lookupRepositoryFile(ctx, 'acme', 'shop', 'master-documents/none.typ'), undefined);
    await assert.rejects(lookupRepositoryFile(ctx, 'acme', 'shop', 'master-documents/../../../x.typ'), (err: unknown) => err instanceof AppError && err.code === 'invalid_path');
  });
});
