// Password guessing: failed token requests are counted per user name and per client address in
// the store, so two API processes on one store share the counts. Time moves only by the injected clock.
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { addUser } from '../src/auth/index.js';
import { startServer, type Server } from '../src/server.js';
import { setupProject } from './helpers/project.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const SHOPPER_PASSWORD = 'shopper-password-1';

describeEachStore('token service: password guessing', (kind) => {
  let t: TestServer;
  /** A second API process on the same store. */
  let second: Server;
  // Frozen: the windows move only when the test moves the clock, however slow the machine is.
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };

  before(async () => {
    t = await startTestServer(kind, {}, { now: clock.now });
    await setupProject(t);
    await addUser(t.server.ctx.db, { name: 'shopper', tenant: 'acme', project: 'shop', scope: 'jobs', password: SHOPPER_PASSWORD });
    second = await startServer({ ...t.settings, role: 'api' }, { now: clock.now });
  });
  after(async () => {
    await second.stop();
    await t.close();
  });
  // Every test starts with fresh windows.
  beforeEach(() => {
    clock.advance(61_000);
  });

  const request = (user: string, password: string, base = t.url) =>
    fetch(`${base}/auth/acme/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ username: user, password, project: 'shop', scope: 'jobs' }).toString(),
    });

  async function assertLimited(res: Response, what: string): Promise<void> {
    assert.equal(res.status, 429, what);
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `${what}: Retry-After ${res.headers.get('retry-after')}`);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'path', 'status', 'timestamp']);
    assert.equal(body.status, 429);
    assert.equal(body.code, 'rate_limited');
    assert.equal(body.error, 'Too Many Requests');
    assert.equal(body.path, '/auth/acme/tokens');
  }

  it('refuses the 21st failure for a user name within 60 s, and every request for it until the window ends, across API processes', async () => {
    // 30 wrong passwords at once, half to each API process: exactly 20 are checked.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => request('admin', `wrong-${i}`, i % 2 ? second.url! : t.url)));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(20).fill(401), ...Array(10).fill(429)]);
    for (const res of answers) {
      if (res.status === 429) await assertLimited(res, 'a guess past the limit');
      else assert.equal(((await res.json()) as { error: string }).error, 'invalid_grant');
    }

    await assertLimited(await request('admin', ADMIN_PASSWORD), 'the right password, within the window');
    await assertLimited(await request('admin', ADMIN_PASSWORD, second.url!), 'the right password, on the other process');
    // Another user from the same address is not affected.
    assert.equal((await request('shopper', SHOPPER_PASSWORD)).status, 200);
    assert.equal((await request('shopper', 'wrong-password')).status, 401);

    clock.advance(59_000);
    await assertLimited(await request('admin', ADMIN_PASSWORD), 'still within the window');
    clock.advance(2_000);
    assert.equal((await request('admin', ADMIN_PASSWORD)).status, 200, 'the window has passed');
  });

  it('never counts successful requests', async () => {
    const ok = await Promise.all(Array.from({ length: 25 }, () => request('shopper', SHOPPER_PASSWORD)));
    assert.deepEqual([...new Set(ok.map((r) => r.status))], [200]);
    for (let i = 0; i < 20; i++) assert.equal((await request('shopper', `wrong-${i}`)).status, 401, `failure ${i + 1}`);
    await assertLimited(await request('shopper', 'wrong-21'), 'the 21st failure');
  });

  it('refuses every request from an address past its own, higher limit', async () => {
    // 100 failures spread over 10 user names: none of them reaches its own limit.
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => request(`guess-${i % 10}`, 'wrong-password', i % 2 ? second.url! : t.url)));
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [401]);
    await assertLimited(await request('guess-new', 'wrong-password'), 'the 101st failure from the address');
    await assertLimited(await request('shopper', SHOPPER_PASSWORD), 'any user from that address');
    clock.advance(61_000);
    assert.equal((await request('shopper', SHOPPER_PASSWORD)).status, 200);
  });
});
