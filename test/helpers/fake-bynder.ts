import { createHash, randomUUID } from 'node:crypto';
import { startReceiver, type Receiver, type Received, type Reply } from './receiver.js';

/** An upload as the fake saw it through. */
export interface FakeUpload {
  chunks: Buffer[];
  finalise?: URLSearchParams;
  saved?: { path: string; form: URLSearchParams };
}

/**
 * A local stand-in for Bynder that follows its documented endpoints: OAuth2 token
 * (`/v6/authentication/oauth2/token`), brands (`/api/v4/brands/`), chunked upload
 * (`/v7/file_cmds/upload/prepare`, `/chunk/<n>` checked against `Content-SHA256`, `finalise_api`
 * checked against the reassembled file), and save (`/api/v4/media/save/<fileId>/` or
 * `/api/v4/media/<mediaId>/save/<fileId>/`), which answers 303 "please poll" once first.
 */
export interface FakeBynder {
  readonly receiver: Receiver;
  readonly url: string;
  readonly tokenForms: URLSearchParams[];
  readonly uploads: Map<string, FakeUpload>;
  /** Calls as `METHOD path`, in order (tokens included). */
  calls(): string[];
  close(): Promise<void>;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({ status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/**
 * Starts the fake; `clientSecret` and `refreshToken` are what the token endpoint accepts. With
 * `expireAfter` (a path prefix), the first token stops working after that call, as an expiry would.
 */
export async function startFakeBynder(opts: { clientId: string; clientSecret: string; refreshToken?: string; expireAfter?: string }): Promise<FakeBynder> {
  const valid = new Set<string>();
  const tokenForms: URLSearchParams[] = [];
  const uploads = new Map<string, FakeUpload>();
  let issued = 0;
  let polled = false;

  const handle = (req: Received): Reply => {
    const path = req.url;
    if (path === '/v6/authentication/oauth2/token') {
      const form = new URLSearchParams(req.body.toString());
      tokenForms.push(form);
      const okClient = form.get('client_id') === opts.clientId && form.get('client_secret') === opts.clientSecret;
      const okGrant = form.get('grant_type') === 'client_credentials' || (form.get('grant_type') === 'refresh_token' && form.get('refresh_token') === opts.refreshToken);
      if (!okClient || !okGrant) return json(401, { error: 'invalid_client' });
      const token = `bynder-token-${++issued}`;
      valid.add(token);
      return json(200, { access_token: token, token_type: 'bearer', expires_in: 3600, scope: form.get('scope') });
    }
    if (!valid.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return json(401, { message: 'Unauthorized' });
    if (opts.expireAfter && path.startsWith(opts.expireAfter) && issued === 1) valid.clear();
    if (req.method === 'GET' && path === '/api/v4/brands/') return json(200, [{ id: 'brand-1', name: 'Main brand' }, { id: 'brand-2', name: 'Other' }]);
    if (req.method === 'POST' && path === '/v7/file_cmds/upload/prepare') {
      const id = randomUUID();
      uploads.set(id, { chunks: [] });
      return json(200, { file_id: id });
    }
    let m = /^\/v7\/file_cmds\/upload\/([\w-]+)\/chunk\/(\d+)$/.exec(path);
    if (req.method === 'POST' && m && uploads.has(m[1]!)) {
      if (req.headers['content-sha256'] !== createHash('sha256').update(req.body).digest('hex')) return json(400, { message: 'checksum mismatch' });
      uploads.get(m[1]!)!.chunks[Number(m[2])] = req.body;
      return { status: 204, body: '' };
    }
    m = /^\/v7\/file_cmds\/upload\/([\w-]+)\/finalise_api$/.exec(path);
    if (req.method === 'POST' && m && uploads.has(m[1]!)) {
      const up = uploads.get(m[1]!)!;
      const form = new URLSearchParams(req.body.toString());
      const whole = Buffer.concat(up.chunks);
      if (form.get('sha256') !== createHash('sha256').update(whole).digest('hex') || Number(form.get('fileSize')) !== whole.length || Number(form.get('chunksCount')) !== up.chunks.length) {
        return json(400, { message: 'file does not match' });
      }
      up.finalise = form;
      return { status: 201, headers: { 'x-api-correlation-id': `corr-${m[1]}` }, body: '' };
    }
    m = /^\/api\/v4\/media\/(?:([\w-]+)\/)?save\/([\w-]+)\/$/.exec(path);
    if (req.method === 'POST' && m && uploads.get(m[2]!)?.finalise) {
      if (!polled) {
        polled = true;
        return json(303, { message: 'Import not converted yet, please poll', statuscode: '303' });
      }
      uploads.get(m[2]!)!.saved = { path, form: new URLSearchParams(req.body.toString()) };
      return json(201, { mediaid: m[1] ?? 'media-new-1', batchId: 'batch-1', success: true, mediaitems: [{ original: 'final/x.pdf', destination: 'https://cdn.example/x.pdf' }] });
    }
    return json(404, { message: `fake Bynder has no ${req.method} ${path}` });
  };

  const receiver = await startReceiver(handle);
  return {
    receiver,
    url: receiver.url,
    tokenForms,
    uploads,
    calls: () => receiver.requests.map((q) => `${q.method} ${q.url}`),
    close: () => receiver.close(),
  };
}
