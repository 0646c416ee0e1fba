// The Studio served by the service, in a real browser: addresses, caching, sign in and out,
// operator views, statistics charts; and that it never asks anything of another host.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkipReason, ensureStudioBuilt, openBrowser, signIn, type Browser } from './helpers/browser.js';
import { setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const skip = browserSkipReason();

describe('Studio basics [sqlite]', { skip }, () => {
  let t: TestServer;
  let b: Browser;
  let tokens: { jobs: string };
  before(async () => {
    ensureStudioBuilt();
    t = await startTestServer('sqlite');
    tokens = await setupProject(t);
    b = await openBrowser(t.url);
  });
  after(async () => {
    await b?.close();
    await t?.close();
  });

  test('GET / leads to the Studio; build files are cached for good, the page revalidated, view addresses get the page', async () => {
    const root = await fetch(`${t.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/studio/');
    const page = await fetch(`${t.url}/studio/tickets/some-id?x=1`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    const html = await page.text();
    const script = /src="(\/studio\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const js = await fetch(`${t.url}${script}`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal((await fetch(`${t.url}/studio/assets/missing.js`)).status, 404);
  });

  test('a wrong password is refused with the service message; the right one opens the views; sign out returns', async () => {
    const { page } = b;
    await page.goto(`${t.url}/`);
    await signIn(page, { password: 'wrong-password' });
    await page.getByRole('alert').filter({ hasText: /password/i }).waitFor();
    await signIn(page);
    for (const name of ['Tickets', 'Playground', 'Repository', 'Statistics']) await page.getByRole('link', { name, exact: true }).waitFor();
    assert.match(page.url(), /\/studio\/tickets$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'signed out' }).waitFor();
  });

  test('the operator signs in to tenant system, switches to a project and sees the global repository level', async () => {
    const { page } = b;
    await page.goto(`${t.url}/studio/repository`);
    await signIn(page, { tenant: 'system', project: 'admin' });
    await page.getByRole('status').filter({ hasText: 'Choose a working tenant and project' }).waitFor();
    await page.getByLabel('Working tenant').selectOption('acme');
    await page.getByLabel('Working project').selectOption('shop');
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.getByLabel('Level').selectOption('global');
    await page.getByRole('navigation', { name: 'Files' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('statistics: a completed ticket is drawn in the charts of its project', async () => {
    const [id] = await submit(t, tokens.jobs, '<data><item id="1"><name>Chart</name></item></data>');
    await waitComplete(t, tokens.jobs, id!);
    const { page } = b;
    await page.goto(`${t.url}/studio/statistics`);
    await signIn(page);
    const chart = page.getByRole('figure', { name: /Tickets and errors/ });
    await chart.waitFor();
    // uPlot draws on a canvas: some of its pixels are painted.
    // (The test's tsconfig has no DOM types: the canvas is described by what is used of it.)
    type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    const painted = await chart.locator('canvas').first().evaluate((c) => {
      const canvas = c as unknown as Canvas;
      const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });
    assert.ok(painted > 100, `canvas has ${painted} painted pixels`);
    await chart.getByText('Table of tickets and errors').click();
    const table = chart.getByRole('table').filter({ hasText: 'Interval start' });
    const row = table.getByRole('row').nth(1);
    await row.waitFor({ state: 'visible' });
    assert.deepEqual((await row.getByRole('cell').allInnerTexts()).slice(1), ['1', '0']);
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('the Studio asked nothing of any other host (fonts and scripts are bundled)', () => {
    assert.deepEqual(b.foreignRequests, []);
  });
});
