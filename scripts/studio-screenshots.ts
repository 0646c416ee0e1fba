// Screenshots of each Studio view for docs/studio.md, taken from a started test server in the
// headless chromium the browser tests use (not part of npm test):
//
//   npm run build && node --import tsx scripts/studio-screenshots.ts [out-dir]
//
// Writes docs/studio/{sign-in,tickets,ticket,playground,playground-error,repository-config-error,statistics}.png.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { browserSkipReason, ensureStudioBuilt, openBrowser, signIn } from '../test/helpers/browser.js';
import { putFile, setupProject, submit, waitComplete } from '../test/helpers/project.js';
import { ADMIN_PASSWORD, startTestServer } from '../test/helpers/server.js';

const out = resolve(process.argv[2] ?? 'docs/studio');
const reason = browserSkipReason();
if (reason) {
  console.error(`no screenshots: ${reason}`);
  process.exit(1);
}

const sheet = (sku: string, name: string, price: string) =>
  `<data><item id="${sku}"><name>${name}</name><brand>Caffè Nord</brand><price currency="EUR">${price}</price><feature>Dual boiler</feature><feature>58 mm portafilter</feature></item></data>`;

ensureStudioBuilt();
await mkdir(out, { recursive: true });
const t = await startTestServer('sqlite');
const b = await openBrowser(t.url);
const { page } = b;
const shot = async (name: string) => {
  // Let fonts and images settle (the views are drawn once their data is there).
  await page.evaluate('document.fonts.ready');
  await page.screenshot({ path: join(out, `${name}.png`) });
  console.log(join(out, `${name}.png`));
};
const templateEditor = (p: Page) => p.getByRole('textbox', { name: 'Template', exact: true });
const previewShows = (p: Page, text: string) => p.getByRole('region', { name: 'Preview', exact: true }).locator(`img[alt*=${JSON.stringify(text)}]`).first().waitFor({ timeout: 60_000 });

try {
  const tokens = await setupProject(t);
  // A few tickets: succeeded ones with foreign keys, and one that fails on a broken template.
  const ids: string[] = [];
  for (const [i, [sku, name, price]] of [
    ['EM-2000', 'Espresso machine EM-2000', '249.90'],
    ['GR-40', 'Coffee grinder GR-40', '129.00'],
    ['KT-7', 'Kettle KT-7', '59.90'],
  ].entries()) {
    ids.push(...(await submit(t, tokens.jobs, sheet(sku!, name!, price!), { query: `foreignKey=order-${101 + i}` })));
  }
  await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/broken.typ', '= Title\n#let x = (1, 2\n');
  ids.push(...(await submit(t, tokens.jobs, sheet('X-1', 'Broken', '1.00'), { query: 'documentTemplate=broken&foreignKey=order-104' })));
  for (const id of ids) await waitComplete(t, tokens.jobs, id);

  // Sign in.
  await page.goto(`${t.url}/studio/`);
  await page.getByLabel('Tenant', { exact: true }).fill('acme');
  await page.getByLabel('Project', { exact: true }).fill('shop');
  await page.getByLabel('User name', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await shot('sign-in');

  // Tickets list.
  await page.getByRole('button', { name: 'Sign in' }).click();
  const table = page.getByRole('table', { name: 'Tickets of the project' });
  await table.getByText(/^failed · /).waitFor();
  await shot('tickets');

  // A ticket page with its page images.
  await table.getByRole('link', { name: ids[0]! }).click();
  await page.getByRole('img', { name: /^Page 1 of \d+$/ }).waitFor({ timeout: 60_000 });
  await shot('ticket');

  // Playground: the default template over the sample data, a line typed at its end.
  await page.getByRole('link', { name: 'Playground', exact: true }).click();
  await templateEditor(page).waitFor();
  await previewShows(page, 'Espresso machine Aurora');
  await templateEditor(page).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('Typed in the playground.', { delay: 5 });
  await previewShows(page, 'Typed in the playground.');
  await shot('playground');

  // Playground with a compile error.
  await page.keyboard.press('Enter');
  await page.keyboard.type('#let = 1', { delay: 5 });
  await page.getByRole('list', { name: 'Problems' }).getByText(/^\d+:\d+ expected pattern$/).waitFor();
  await page.locator('.cm-lintRange-error').waitFor();
  await shot('playground-error');

  // Repository: a config.ion with a property of the wrong type, checked before saving.
  const config = 'tenants/acme/projects/shop/restapi/config.ion';
  await putFile(t, tokens.admin, config, '{\n  keepInputForSeconds: 3600\n}\n');
  await page.goto(`${t.url}/studio/repository?path=${encodeURIComponent(config)}`);
  await signIn(page);
  const file = page.getByRole('textbox', { name: 'File content', exact: true });
  await file.getByText('keepInputForSeconds: 3600').click();
  await page.keyboard.press('End');
  await page.keyboard.type(',', { delay: 5 });
  await page.keyboard.press('Enter');
  await page.keyboard.type('fanout: { enabled: "yes" }', { delay: 5 });
  await page.getByRole('list', { name: 'Problems' }).getByText(/^3:\d+ fanout\.enabled: /).waitFor();
  await page.locator('.cm-lintRange-error').waitFor();
  await shot('repository-config-error');

  // Statistics of the project.
  await page.getByRole('link', { name: 'Statistics', exact: true }).click();
  await page.getByRole('figure', { name: /Tickets and errors/ }).locator('canvas').first().waitFor();
  await shot('statistics');
} finally {
  await b.close();
  await t.close();
}
