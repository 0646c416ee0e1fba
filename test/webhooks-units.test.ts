import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { matchConnection } from '../src/webhooks/connections.js';
import { chunksOf } from '../src/webhooks/dam/chunks.js';
import { failureLine, retryAfterMs } from '../src/webhooks/outcome.js';
import { escapeFor, escapes, fill } from '../src/webhooks/placeholders.js';
import { evaluateString, headersTree, jsonTree, xmlTree } from '../src/webhooks/xml-tree.js';

describe('webhook building blocks', () => {
  it('splits an upload into fixed-size chunks whatever the stream pieces', async () => {
    const data = Buffer.from(Array.from({ length: 23 }, (_, i) => i));
    const pieces = [data.subarray(0, 3), data.subarray(3, 14), data.subarray(14, 15), data.subarray(15)];
    const chunks: Buffer[] = [];
    for await (const c of chunksOf(Readable.from(pieces), 5)) chunks.push(c);
    assert.deepEqual(chunks.map((c) => c.length), [5, 5, 5, 5, 3]);
    assert.ok(Buffer.concat(chunks).equals(data));
    const exact: Buffer[] = [];
    for await (const c of chunksOf(Readable.from([data.subarray(0, 10)]), 5)) exact.push(c);
    assert.deepEqual(exact.map((c) => c.length), [5, 5]);
  });

  it('picks the connection with the longest matching prefix', () => {
    const conns = [{ url: 'https://a.example/' }, { url: 'https://a.example/hooks/' }, { url: 'https://a.example/hooks/x' }];
    assert.equal(matchConnection(conns, 'https://a.example/hooks/xy')?.url, 'https://a.example/hooks/x');
    assert.equal(matchConnection(conns, 'https://a.example/hooks/y')?.url, 'https://a.example/hooks/');
    assert.equal(matchConnection(conns, 'https://a.example/other')?.url, 'https://a.example/');
    assert.equal(matchConnection(conns, 'https://b.example/'), undefined);
  });

  it('fills {name} and ${name}, escaping for the place, leaving unknown names and JSON braces', () => {
    const values = { ticket: 'T1', msg: 'a b&c/"d"' };
    assert.equal(fill('https://h/{ticket}?m={msg}&x={nope}', values, escapes.url), 'https://h/T1?m=a%20b%26c%2F%22d%22&x={nope}');
    assert.equal(fill('{"t":"${ticket}","m":"{msg}"}', values, escapeFor('application/json; charset=utf-8')), '{"t":"T1","m":"a b&c/\\"d\\""}');
    assert.equal(fill('<m a="{msg}"/>', values, escapeFor('text/xml')), '<m a="a b&amp;c/&quot;d&quot;"/>');
    assert.equal(fill('x: {msg}', { msg: 'a\r\nInjected: 1' }, escapes.header), 'x: a Injected: 1');
  });

  it('evaluates XPath over JSON, header and XML trees', () => {
    const json = jsonTree({ data: { items: [{ id: 'a' }, { id: 'b' }] }, 'odd key': 1, nothing: null });
    assert.equal(evaluateString('data/items[2]/id', json), 'b');
    assert.equal(evaluateString('/json/data/items[1]/id', json), 'a');
    assert.equal(evaluateString('count(data/items)', json), '2');
    assert.equal(evaluateString("_[@name='odd key']", json), '1');
    assert.equal(evaluateString('nothing', json), '');
    assert.equal(evaluateString('missing', json), undefined);
    assert.equal(evaluateString('item[2]/n', jsonTree([{ n: 1 }, { n: 2 }])), '2');
    assert.equal(evaluateString("substring-after(location, '/f/')", headersTree({ location: '/f/9' })), '9');
    assert.equal(evaluateString('b/@id', xmlTree(Buffer.from('<a><b id="x"/></a>'))), 'x');
    assert.throws(() => xmlTree(Buffer.from('<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>')), /DOCTYPE/);
  });

  it('reads Retry-After as seconds or a date, capped at a day', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:01:00 GMT', now), 60_000);
    assert.equal(retryAfterMs('999999', now), 86_400_000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });

  it('formats the failure line exactly, without URL credentials', () => {
    const ex = { method: 'PUT', url: 'https://user:pw@h.example/x?y=1', status: 500, headers: {}, body: Buffer.from('no'), ms: 12, bytesSent: 300, bytesReceived: 2 };
    assert.equal(failureLine(ex), 'HTTP [500] (12 ms, 300 bytes sent, 2 bytes received). PUT https://***@h.example/x?y=1');
    assert.equal(failureLine({ ...ex, url: 'https://h.example/', status: null, failure: { kind: 'timeout', reason: 'no complete answer in time' } }), 'HTTP [timeout] (12 ms, 300 bytes sent, 2 bytes received). PUT https://h.example/ (no complete answer in time)');
  });
});
