// Tickets in the Studio, in a real browser against a started service: a ticket submitted through
// the API appears and completes live, its page shows status, timeline and pages, its PDF
// downloads; a failed ticket shows its error and log; another tenant's ticket is not found.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { browserSkipReason, ensureStudioBuilt, eventually, openBrowser, signIn, type Browser } from './helpers/browser.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const skip = browserSkipReason();
const grid = (name: string) => `<data><item id="A-1"><name>${name}</name><price currency="EUR">12.50</price></item></data>`;

describeEachStore('Studio tickets', (kind) => {
  let t: TestServer;
  let b: Browser;
  let tokens: { jobs: string; admin: string };
  before(async () => {
    if (skip) return;
    ensureStudioBuilt();
    t = await startTestServer(kind);
    tokens = await setupProject(t);
    b = await openBrowser(t.url);
    await b.page.goto(`${t.url}/studio/tickets`);
    await signIn(b.page, { scope: 'jobs' });
    await b.page.getByRole('table', { name: 'Tickets of the project' }).waitFor();
  });
  after(async () => {
    await b?.close();
    await t?.close();
  });

  test('a ticket submitted through the API appears, completes, and its page shows status, timeline and pages', { skip }, async () => {
    const { page } = b;
    const [id] = await submit(t, tokens.jobs, grid('Studio sheet'), { query: 'foreignKey=order-7' });
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: id! }) });
    await row.waitFor();
    await row.getByText(/^done · /).waitFor({ timeout: 30_000 });
    assert.match(await row.innerText(), /order-7/);

    await row.getByRole('link', { name: id! }).click();
    await page.getByRole('heading', { name: `Ticket ${id}` }).waitFor();
    for (const field of ['complete', 'tenant', 'project', 'ticket', 'status', 'next', 'messages', 'created', 'updated', 'redeliveries', 'processingPages', 'errorCode']) {
      await page.getByRole('term').filter({ hasText: new RegExp(`^${field}\\b`) }).first().waitFor();
    }
    const timeline = page.getByRole('table').filter({ hasText: 'Duration' });
    await timeline.getByRole('cell', { name: 'renderpdf', exact: true }).first().waitFor();
    await page.getByRole('img', { name: /^Page 1 of \d+$/ }).waitFor({ timeout: 30_000 });
  });

  test('the PDF of a ticket downloads from its page', { skip }, async () => {
    const { page } = b;
    const [id] = await submit(t, tokens.jobs, grid('Download me'));
    await waitComplete(t, tokens.jobs, id!);
    await page.goto(`${t.url}/studio/tickets/${id}`);
    await signIn(page, { scope: 'jobs' });
    const button = page.getByRole('button', { name: 'Download PDF' });
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    assert.equal(download.suggestedFilename(), `${id}.pdf`);
    const bytes = await readFile((await download.path())!);
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    // Looking in the Studio does not ship the ticket.
    const status = (await (await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/status`, { token: tokens.jobs })).json()) as { shipped: boolean };
    assert.equal(status.shipped, false);
  });

  test('a failed ticket shows its error code, message and render log, and opens in the playground', { skip }, async () => {
    const { page } = b;
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/broken.typ', '= Title\n#let x = (1, 2\n');
    const [id] = await submit(t, tokens.jobs, grid('Broken'), { query: 'documentTemplate=broken' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.ok(s.errorCode, JSON.stringify(s));
    await page.goto(`${t.url}/studio/tickets/${id}`);
    await signIn(page, { scope: 'jobs' });
    const failure = page.getByRole('region', { name: 'Failure' });
    // Exact: the render log below also mentions the code.
    await failure.getByText(s.errorCode!, { exact: true }).waitFor();
    await failure.getByLabel('Render log').waitFor();
    await failure.getByRole('button', { name: 'Open in playground' }).click();
    await page.waitForURL(new RegExp(`/studio/playground\\?ticket=${id}`));
    await page.getByRole('textbox', { name: 'Data', exact: true }).getByText('Broken').waitFor();
  });

  test("another tenant's ticket id in the address bar is not found", { skip }, async () => {
    const other = await setupProject(t, 'globex', 'web');
    const [foreign] = await submit(t, other.jobs, grid('Not yours'), { tenant: 'globex', project: 'web' });
    const { page } = b;
    await page.goto(`${t.url}/studio/tickets/${foreign}`);
    await signIn(page, { scope: 'jobs' });
    await page.getByRole('heading', { name: 'Ticket not found' }).waitFor();
    assert.equal(await page.getByText('Not yours').count(), 0);
  });

  test('filters narrow the list by foreign key, and the address keeps them', { skip }, async () => {
    const { page } = b;
    await page.getByRole('link', { name: 'Tickets', exact: true }).click();
    await page.getByLabel('Foreign key').fill('order-7');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/foreignKey=order-7/);
    const rows = page.getByRole('table', { name: 'Tickets of the project' }).getByRole('row');
    // The header row and the one ticket with that foreign key.
    await eventually(() => rows.count(), (n) => n === 2);
  });
});
