import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { definitions, loadSettings, type Settings } from '../src/config/settings.js';
import { errorCatalogue, ticketErrorCodes } from '../src/errors.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Rows of the first Markdown table after `heading`, as arrays of trimmed cells. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `heading ${heading} not found`);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    // Split on pipes that are not escaped (`\|` appears inside cells).
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows;
}

const unticked = (cell: string) => /^`([^`]+)`$/.exec(cell)?.[1];

// Variables of the test runner, not of the service.
const testOnlyVariables = new Set(['PRESSROOM_TEST_DATABASE_URL', 'PRESSROOM_TEST_CONCURRENCY', 'PRESSROOM_TEST_S3_ENDPOINT']);

describe('documentation matches the code', () => {
  it('docs/errors.md lists every error code of the catalogue with its status, and no other', () => {
    const rows = tableAfter(read('docs/errors.md'), '## Error codes');
    const documented = new Map(rows.map(([code, status]) => [unticked(code!) ?? code!, Number(status)]));
    assert.equal(documented.size, rows.length, 'a code is documented twice');
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      assert.ok(documented.has(code), `docs/errors.md does not document ${code}`);
      assert.equal(documented.get(code), entry.status, `status of ${code}`);
    }
    const unknown = [...documented.keys()].filter((c) => !(c in errorCatalogue));
    assert.deepEqual(unknown, [], 'docs/errors.md documents codes the catalogue does not have');
    for (const [code, status] of documented) assert.ok(rows.find((r) => unticked(r[0]!) === code)![2]!.length > 10, `meaning of ${code} (${status})`);
  });

  it('docs/errors.md lists every ticket errorCode value with its name, and no other', () => {
    const rows = tableAfter(read('docs/errors.md'), '## Ticket errorCode values');
    const documented = rows.map(([code, name]) => `${unticked(code!) ?? code} ${unticked(name!) ?? name}`);
    const actual = Object.entries(ticketErrorCodes).map(([name, code]) => `${code} ${name}`);
    assert.deepEqual(documented.slice().sort(), actual.slice().sort());
    assert.equal(new Set(Object.values(ticketErrorCodes)).size, actual.length, 'one name per errorCode');
    for (const row of rows) assert.ok(row[3]!.length > 10, `meaning of ${row[0]}`);
  });

  it('docs/configuration.md lists exactly the settings of settings.ts, with their defaults', () => {
    const rows = tableAfter(read('docs/configuration.md'), '## Settings');
    const byEnv = new Map(Object.entries(definitions).map(([key, def]) => [def.env, key as keyof Settings]));
    const documented = rows.map((r) => unticked(r[0]!) ?? r[0]!);
    assert.deepEqual(documented.filter((e) => !byEnv.has(e)), [], 'documented variables that do not exist');
    assert.deepEqual([...byEnv.keys()].filter((e) => !documented.includes(e)), [], 'variables missing from docs/configuration.md');
    assert.equal(new Set(documented).size, documented.length, 'a variable is documented twice');

    const defaults = loadSettings({});
    for (const [envCell, defaultCell, meaning] of rows) {
      const key = byEnv.get(unticked(envCell!)!)!;
      assert.ok(meaning && meaning.length > 10, `meaning of ${envCell}`);
      const actual = defaults[key];
      const shown = unticked(defaultCell!);
      if (defaultCell === 'unset') assert.equal(actual, null, `${envCell} default`);
      else if (defaultCell === 'empty') assert.deepEqual(actual, [], `${envCell} default`);
      else if (shown !== undefined) {
        const expected = key === 'dataDir' ? resolve(shown) : shown;
        assert.equal(String(actual), expected, `${envCell} default`);
      }
    }
  });

  it('docs/transform.md states the XSLT time limit the service applies: the render time limit', () => {
    const doc = read('docs/transform.md');
    const limit = loadSettings({}).renderTimeoutMs;
    const row = tableAfter(doc, '## Options').find((r) => r[0] === '`timeoutMs`');
    assert.equal(Number(row?.[1]), limit, 'default of timeoutMs in the options table');
    assert.match(row![2]!, /PRESSROOM_RENDER_TIMEOUT_MS/);
    const stated = [...doc.matchAll(/stopped after (\d+) ms/g)].map((m) => Number(m[1]));
    assert.ok(stated.length > 0);
    assert.deepEqual(stated, stated.map(() => limit), 'the example time-out message');
    assert.doesNotMatch(doc, /timeoutMs: 30_000/);
  });

  it('the docs mention no PRESSROOM_ variable that does not exist', () => {
    const known = new Set(Object.values(definitions).map((d) => d.env));
    const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const file of files) {
      // `$PRESSROOM_X` / `${PRESSROOM_X}` are shell variables of an example, not settings.
      for (const [, name] of read(file).matchAll(/(?<![${])\b(PRESSROOM_[A-Z0-9_]+)/g)) {
        assert.ok(known.has(name!) || testOnlyVariables.has(name!), `${file} mentions ${name}, which settings.ts does not define`);
      }
    }
  });

  it('relative links in README.md and docs/ point at existing files and headings', () => {
    const slug = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
    const headings = (file: string) => new Set([...read(file).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ''))));
    const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : join(dirname(file), path);
        assert.ok(existsSync(join(root, resolved)), `${file} links to missing ${target}`);
        if (anchor && resolved.endsWith('.md')) assert.ok(headings(resolved).has(anchor), `${file} links to missing heading ${target}`);
      }
    }
  });
});

describe('error answers have the documented shape', () => {
  let t: TestServer;
  let op: string;
  before(async () => {
    t = await startTestServer('sqlite');
    op = await t.operatorToken();
  });
  after(() => t.close());

  /** A raw request: fetch would normalise `..` and percent escapes away. */
  const raw = (path: string, method = 'GET', headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }>((done, fail) => {
      const url = new URL(t.url);
      const req = request({ host: url.hostname, port: url.port, path, method, headers: { accept: 'application/json', ...headers } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }));
      });
      req.on('error', fail);
      req.end();
    });

  const assertShape = (body: Record<string, unknown>, status: number, code: string, path: string) => {
    const keys = Object.keys(body).sort();
    const expected = ['code', 'error', 'message', 'path', 'status', 'timestamp'];
    assert.deepEqual(keys.filter((k) => k !== 'details'), expected, JSON.stringify(body));
    assert.equal(body.status, status);
    assert.equal(body.code, code);
    assert.ok(code in errorCatalogue);
    assert.equal(errorCatalogue[code as keyof typeof errorCatalogue].status, status);
    assert.equal(body.path, path);
    assert.ok(!Number.isNaN(Date.parse(body.timestamp as string)));
    assert.equal(typeof body.error, 'string');
    if (status === 400) assert.ok(Array.isArray(body.details) && body.details.length > 0, 'details on 400');
  };

  it('for routing, auth, negotiation and validation errors', async () => {
    const bearer = { authorization: `Bearer ${op}` };
    const cases: [string, string, Record<string, string>, number, string, string][] = [
      ['GET', '/rest/tenants', {}, 401, 'unauthorized', '/rest/tenants'],
      ['GET', '/rest/tenants', { authorization: 'Basic abc' }, 401, 'unauthorized', '/rest/tenants'],
      ['GET', '/rest/tenants?pattern=x', { ...bearer, accept: 'text/csv' }, 406, 'not_acceptable', '/rest/tenants'],
      ['GET', '/rest/tenants/nobody', bearer, 404, 'not_found', '/rest/tenants/nobody'],
      ['GET', '/no/such/route', {}, 404, 'not_found', '/no/such/route'],
      ['PUT', '/rest/tenants', bearer, 405, 'method_not_allowed', '/rest/tenants'],
      ['POST', '/rest/tenants?name=a%20b', bearer, 400, 'bad_request', '/rest/tenants'],
      ['GET', '/rest/tenants?pattern=%5E(', bearer, 400, 'invalid_pattern', '/rest/tenants'],
      // A malformed percent escape never reaches a route: Fastify's framework error, same shape.
      ['GET', '/rest/tenants/%E0%A4%A', bearer, 400, 'bad_request', '/rest/tenants/%E0%A4%A'],
      // A 403 raised by a plugin (static files of the docs page) keeps its status and gets the matching code.
      ['GET', '/rest/docs/static/../../../etc/passwd', {}, 403, 'forbidden', '/rest/docs/static/../../../etc/passwd'],
    ];
    for (const [method, path, headers, status, code, shownPath] of cases) {
      const res = await raw(path, method, headers);
      assert.equal(res.status, status, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assertShape(res.body, status, code, shownPath);
      if (status === 401) assert.equal(res.headers['www-authenticate'], 'Bearer');
      if (status === 405) assert.equal(res.headers.allow, 'GET, POST');
    }
  });

  it('for the token endpoint: OAuth fields for grant errors, the common shape otherwise', async () => {
    const post = (body: string, contentType = 'application/x-www-form-urlencoded') =>
      fetch(`${t.url}/auth/acme/tokens`, { method: 'POST', headers: { 'content-type': contentType, accept: 'application/json' }, body });
    const grant = await post('username=admin&password=wrong-password&project=shop&scope=jobs');
    assert.equal(grant.status, 401);
    const body = (await grant.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'message', 'path', 'status', 'timestamp']);
    assert.equal(body.error, 'invalid_grant');
    assert.equal(body.path, '/auth/acme/tokens');

    const media = await post('{}', 'application/json');
    assert.equal(media.status, 415);
    assertShape((await media.json()) as Record<string, unknown>, 415, 'unsupported_media_type', '/auth/acme/tokens');
  });
});
