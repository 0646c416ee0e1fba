import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fetch as undiciFetch } from 'undici';
import { AddressPolicy, guardedAgent, isSpecialAddress } from '../src/net/index.js';

function listen(host: string, handler: (url: string) => [number, Record<string, string>]): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const [status, headers] = handler(req.url ?? '');
    res.writeHead(status, headers).end('ok');
  });
  return new Promise((resolve) => server.listen(0, host, () => resolve({ server, port: (server.address() as AddressInfo).port, hits })));
}

describe('address policy', () => {
  let a: Awaited<ReturnType<typeof listen>>;
  let b: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    b = await listen('127.0.0.2', () => [200, {}]);
    a = await listen('127.0.0.1', (url) => (url === '/redirect' ? [302, { location: `http://127.0.0.2:${b.port}/secret` }] : [200, {}]));
  });
  after(() => {
    a.server.close();
    b.server.close();
  });

  const get = (policy: AddressPolicy, url: string) => undiciFetch(url, { dispatcher: guardedAgent(policy, { connectTimeoutMs: 2000 }) });

  it('classifies loopback, private, link-local, metadata and mapped addresses as special', () => {
    for (const ip of ['127.0.0.1', '127.0.0.2', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1']) {
      assert.ok(isSpecialAddress(ip), ip);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) assert.ok(!isSpecialAddress(ip), ip);
  });

  it('refuses loopback without the allow-list and reaches it with it', async () => {
    await assert.rejects(get(new AddressPolicy([]), `http://127.0.0.1:${a.port}/`), (err: Error) => /not a public address/.test(String((err.cause as Error)?.message ?? err.message)));
    await assert.rejects(get(new AddressPolicy([]), `http://localhost:${a.port}/`));
    assert.equal(a.hits.length, 0, 'no request reached the server');
    assert.equal((await get(new AddressPolicy(['127.0.0.1']), `http://127.0.0.1:${a.port}/`)).status, 200);
    assert.equal((await get(new AddressPolicy(['127.0.0.0/8']), `http://127.0.0.1:${a.port}/`)).status, 200);
    assert.equal((await get(new AddressPolicy(['localhost']), `http://localhost:${a.port}/`)).status, 200);
  });

  it('refuses 127.0.0.2, [::1] and the metadata address at once', async () => {
    const policy = new AddressPolicy(['127.0.0.1']);
    for (const url of [`http://127.0.0.2:${b.port}/`, `http://[::1]:${b.port}/`, 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:127.0.0.2]:${b.port}/`]) {
      // Refused by the policy, which runs before connecting (not a connection error or timeout).
      await assert.rejects(get(policy, url), (err: Error) => /not a public address/.test(String((err.cause as Error)?.message ?? err.message)), url);
    }
    assert.equal(b.hits.length, 0);
  });

  it('checks every redirect hop', async () => {
    const policy = new AddressPolicy(['127.0.0.1']);
    await assert.rejects(undiciFetch(`http://127.0.0.1:${a.port}/redirect`, { dispatcher: guardedAgent(policy), redirect: 'follow' }));
    assert.equal(b.hits.length, 0, 'the redirect target got no request');
    assert.ok(a.hits.includes('/redirect'));
  });
});
