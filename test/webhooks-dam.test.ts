import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { seal, sealKey } from '../src/config/sealed.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startFakeBynder, type FakeBynder } from './helpers/fake-bynder.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const P = 'tenants/acme/projects/shop';

describeEachStore('webhooks: asset-management (Bynder) uploader', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let hooks: Receiver;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 30, allowPrivateAddresses: ['127.0.0.1'] });
    tokens = await setupProject(t);
    hooks = await startReceiver();
  });
  after(async () => {
    await hooks.close();
    await t.close();
  });

  it('runs the documented flow with client credentials: token, brand, prepare, chunk, finalise, save (polling), export, callback', async () => {
    const bynder: FakeBynder = await startFakeBynder({ clientId: 'client-1', clientSecret: 'very-secret-1' });
    try {
      const sealed = seal(await sealKey(t.settings, t.server.ctx.db.kysely), 'very-secret-1');
      await putFile(
        t,
        tokens.admin,
        `${P}/upload/config.ion`,
        `{ connections: [ { url: "${bynder.url}/", uploadType: "dam",
            authentication: { type: OAuth2, grantType: ClientCredentials, clientId: "client-1", clientSecret: "${sealed}" },
            exportParams: [ { name: "mediaId", source: jsonBody, path: "mediaid" }, { name: "cdn", source: jsonBody, path: "mediaitems[1]/destination" } ] } ] }`,
      );
      const query = new URLSearchParams({ upload: `${bynder.url}/`, callback: `${hooks.url}/done/{mediaId}` });
      for (const c of ['dam_asset_name:Espresso sheet', 'dam_tags:kitchen,coffee', 'dam_meta_props:color,size', 'dam_meta_key_color:MP-COLOR', 'dam_meta_val_color:OPT-RED', 'dam_meta_key_size:MP-SIZE', 'dam_meta_val_size:OPT-A4']) query.append('custom', c);
      const [id] = await submit(t, tokens.jobs, grid, { query: query.toString() });
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
      assert.deepEqual(s.messages, []);
      assert.equal((s as unknown as { shipped: boolean }).shipped, true);

      const [fileId] = [...bynder.uploads.keys()];
      assert.deepEqual(bynder.calls(), [
        'POST /v6/authentication/oauth2/token',
        'GET /api/v4/brands/',
        'POST /v7/file_cmds/upload/prepare',
        `POST /v7/file_cmds/upload/${fileId}/chunk/0`,
        `POST /v7/file_cmds/upload/${fileId}/finalise_api`,
        `POST /api/v4/media/save/${fileId}/`,
        `POST /api/v4/media/save/${fileId}/`,
      ]);
      assert.deepEqual(Object.fromEntries(bynder.tokenForms[0]!), {
        client_id: 'client-1',
        client_secret: 'very-secret-1',
        grant_type: 'client_credentials',
        scope: 'offline asset:read asset:write collection:read collection:write meta.assetbank:read meta.assetbank:write',
      });
      const upload = bynder.uploads.get(fileId!)!;
      assert.ok(Buffer.concat(upload.chunks).equals(await artifactPdf(t, tokens.jobs, id!)), 'Bynder received the PDF');
      assert.equal(upload.finalise!.get('fileName'), `${id}.pdf`);
      assert.deepEqual(Object.fromEntries(upload.saved!.form), {
        name: 'Espresso sheet',
        brandId: 'brand-1',
        tags: 'kitchen,coffee',
        'metaproperty.MP-COLOR': 'OPT-RED',
        'metaproperty.MP-SIZE': 'OPT-A4',
      });
      assert.deepEqual(
        hooks.requests.map((q) => q.url),
        ['/done/media-new-1'],
      );
      const body = JSON.parse(hooks.requests[0]!.body.toString()) as Record<string, string>;
      assert.equal(body.cdn, 'https://cdn.example/x.pdf');
      assert.ok(!JSON.stringify(s).includes('very-secret-1'));
    } finally {
      await bynder.close();
    }
  });

  it('uses a refresh token (AuthorizationCode), refreshes on 401, and saves a new version with dam_media_id', async () => {
    const bynder = await startFakeBynder({ clientId: 'client-2', clientSecret: 'secret-2', refreshToken: 'rt-1', expireAfter: '/v7/file_cmds/upload/prepare' });
    try {
      await putFile(
        t,
        tokens.admin,
        `${P}/upload/config.ion`,
        `{ connections: [ { url: "${bynder.url}/", uploadType: "dam",
            authentication: { type: OAuth2, grantType: AuthorizationCode, clientId: "client-2", clientSecret: "secret-2", redirectUri: "https://app.example/cb", params: { refresh_token: "rt-1" }, scope: "asset:write,offline" } } ] }`,
      );
      const query = new URLSearchParams({ upload: `${bynder.url}/` });
      query.append('custom', 'dam_media_id:MEDIA-42');
      const [id] = await submit(t, tokens.jobs, grid, { query: query.toString() });
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'upload.succeeded', JSON.stringify(s));
      const [fileId] = [...bynder.uploads.keys()];
      assert.deepEqual(bynder.calls(), [
        'POST /v6/authentication/oauth2/token',
        'POST /v7/file_cmds/upload/prepare',
        `POST /v7/file_cmds/upload/${fileId}/chunk/0`,
        'POST /v6/authentication/oauth2/token',
        `POST /v7/file_cmds/upload/${fileId}/chunk/0`,
        `POST /v7/file_cmds/upload/${fileId}/finalise_api`,
        `POST /api/v4/media/MEDIA-42/save/${fileId}/`,
        `POST /api/v4/media/MEDIA-42/save/${fileId}/`,
      ]);
      for (const form of bynder.tokenForms) {
        assert.equal(form.get('grant_type'), 'refresh_token');
        assert.equal(form.get('refresh_token'), 'rt-1');
        assert.equal(form.get('scope'), 'asset:write offline');
      }
      assert.deepEqual(Object.fromEntries(bynder.uploads.get(fileId!)!.saved!.form), {}, 'a new version takes no asset fields');
    } finally {
      await bynder.close();
    }
  });

  it('fails with the exact message when Bynder refuses, and never leaks the client secret', async () => {
    const bynder = await startFakeBynder({ clientId: 'client-3', clientSecret: 'the-right-one' });
    try {
      await putFile(
        t,
        tokens.admin,
        `${P}/upload/config.ion`,
        `{ connections: [ { url: "${bynder.url}/", uploadType: "dam", authentication: { type: OAuth2, grantType: ClientCredentials, clientId: "client-3", clientSecret: "a-wrong-secret" } } ] }`,
      );
      const [id] = await submit(t, tokens.jobs, grid, { query: `upload=${encodeURIComponent(`${bynder.url}/`)}` });
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'upload.failed');
      assert.equal(s.errorCode, '401');
      assert.match(s.messages[0]!, new RegExp(`^HTTP \\[401\\] \\(\\d+ ms, \\d+ bytes sent, \\d+ bytes received\\)\\. POST ${bynder.url}/v6/authentication/oauth2/token$`));
      assert.ok(!JSON.stringify(s).includes('a-wrong-secret'));
    } finally {
      await bynder.close();
    }
  });
});
