// The playground and the repository editor of the Studio, in a real browser against a started
// service: typing into the built-in default template re-renders the preview (its latency from
// the last keystroke is measured in the browser and reported, never asserted), a compile error is
// listed as `line:column message` and marked in the editor, a template that loops forever is
// stopped at the time limit while the service keeps answering, Save writes the template to the
// repository and Render runs the real pipeline, a 401 mid-session loses nothing in the editor,
// a template over the size limit is refused with the service's message, and a config.ion that
// does not validate shows the service's error at its property before saving.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, ensureStudioBuilt, eventually, openBrowser, signIn, type Browser } from './helpers/browser.js';
import { pdfText } from './helpers/pdf.js';
import { artifactPdf, putFile, setupProject, waitComplete } from './helpers/project.js';
import { testClock } from './helpers/clock.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const skip = browserSkipReason();
const DEFAULT_TYP = await readFile(new URL('../templates/typst/default.typ', import.meta.url), 'utf8');
const EDITS = 7;

/** The template editor (a CodeMirror content element with role textbox). */
const templateEditor = (page: Page) => page.getByRole('textbox', { name: 'Template', exact: true });
const previewRegion = (page: Page) => page.getByRole('region', { name: 'Preview', exact: true });

/** Waits until one page image of the preview has `text` in its accessible name (the page's text). */
async function previewShows(page: Page, text: string, timeout = 60_000): Promise<void> {
  await previewRegion(page).locator(`img[alt*=${JSON.stringify(text)}]`).first().waitFor({ timeout });
}

/** Opens the playground signed in to acme/<project>, with the default template's first preview shown. */
async function openPlayground(page: Page, url: string, project = 'shop'): Promise<void> {
  await page.goto(`${url}/studio/playground`);
  await signIn(page, { project });
  await templateEditor(page).waitFor();
  // The built-in default template over the built-in sample data: the sample's product name.
  await previewShows(page, 'Espresso machine Aurora');
}

/** Puts the cursor at the end of the template (Ctrl+End), as a person would before typing. */
async function toEndOfTemplate(page: Page): Promise<void> {
  await templateEditor(page).click();
  await page.keyboard.press('Control+End');
}

// Run in the page (the test's tsconfig has no DOM types, so these are strings). The first records
// the time of every keydown; the second, installed before typing, resolves with the milliseconds
// from the last keydown until the frame after a preview page's text first contains the word.
const RECORD_KEYS = `(() => {
  if (window.__keys) return;
  window.__keys = { last: 0 };
  document.addEventListener('keydown', () => { window.__keys.last = performance.now(); }, true);
})()`;
const awaitWord = (word: string) => `(() => {
  const region = document.querySelector('section[aria-label="Preview"]');
  window.__seen = new Promise((resolve) => {
    const check = () => {
      if (![...region.querySelectorAll('img')].some((img) => img.alt.includes(${JSON.stringify(word)}))) return false;
      requestAnimationFrame(() => resolve(performance.now() - window.__keys.last));
      return true;
    };
    if (check()) return;
    const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
    observer.observe(region, { subtree: true, childList: true, attributes: true, attributeFilter: ['alt', 'src'] });
  });
})()`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

describe('Studio playground and repository [sqlite]', { skip }, () => {
  let t: TestServer;
  let b: Browser;
  let tokens: { op: string; jobs: string; admin: string };
  // The service's clock, moved on to outlast its 10 s cache of token identities.
  const clock = testClock();
  before(async () => {
    ensureStudioBuilt();
    t = await startTestServer('sqlite', {}, { now: clock.now });
    tokens = await setupProject(t);
    b = await openBrowser(t.url);
  });
  after(async () => {
    await b?.close();
    await t?.close();
  });

  test(`typing into the default template changes the preview's text (latency over ${EDITS} edits reported)`, async (ctx) => {
    const { page } = b;
    await openPlayground(page, t.url);
    await page.evaluate(RECORD_KEYS);
    await toEndOfTemplate(page);
    const samples: number[] = [];
    for (let i = 1; i <= EDITS; i++) {
      // A word that is only complete with its last letter, so no earlier preview can show it.
      const word = `Typed${i}word`;
      await page.evaluate(awaitWord(word));
      await page.keyboard.type(` ${word}`, { delay: 40 });
      samples.push(Math.round(await page.evaluate<number>('window.__seen')));
      await previewShows(page, word);
    }
    // Every word typed is in the preview, in order, after the default template's own text.
    const alt = (await previewRegion(page).getByRole('img').last().getAttribute('alt')) ?? '';
    assert.match(alt, new RegExp(Array.from({ length: EDITS }, (_, i) => `Typed${i + 1}word`).join('\\s+')));
    const sorted = [...samples].sort((x, y) => x - y);
    const report = `preview latency from the last keystroke (ms): p50 ${percentile(sorted, 50)}, samples ${samples.join(', ')}`;
    console.log(report);
    ctx.diagnostic(report);
    assert.equal(samples.length, EDITS);
    assert.ok(samples.every((s) => Number.isFinite(s) && s >= 0), report);
  });

  test('a compile error is listed as line:column message at its line and marked in the editor', async () => {
    const { page } = b;
    await openPlayground(page, t.url);
    await toEndOfTemplate(page);
    // The default template ends with a newline: the cursor is on the line after its last one.
    const line = DEFAULT_TYP.split('\n').length;
    await page.keyboard.type('#let = 1', { delay: 10 });
    // What the service says of this template, as the playground sent it (the sample data is not
    // needed to find a syntax error).
    const res = await t.fetch('/rest/tenants/acme/projects/shop/preview', { method: 'POST', token: tokens.admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ template: `${DEFAULT_TYP}#let = 1` }) });
    assert.equal(res.status, 422);
    const { diagnostics } = (await res.json()) as { diagnostics: { line: number; column: number; message: string; severity: string }[] };
    assert.deepEqual(
      diagnostics.map((d) => [d.line, d.message, d.severity]),
      [[line, 'expected pattern', 'error']],
    );
    const expected = `${line}:${diagnostics[0]!.column} expected pattern`;
    const problems = page.getByRole('list', { name: 'Problems' });
    // The list settles on the last preview's answer: a preview of the half-typed line (`#let =`)
    // may still be on screen with the same first problem and a second one after it.
    await eventually(
      () => problems.getByRole('listitem').allInnerTexts(),
      (texts) => texts.length === 1 && texts[0] === expected,
    );
    // CodeMirror marks the place in the text and in the gutter of that line.
    const editor = templateEditor(page);
    const marked = editor.locator('.cm-line').filter({ has: page.locator('.cm-lintRange-error') });
    await marked.waitFor();
    assert.equal(await marked.innerText(), '#let = 1');
    assert.equal(await page.locator('.cm-lint-marker-error').count(), 1);
    // Fixing it clears the list and the marks, and the preview follows again.
    await page.keyboard.press('End');
    for (let i = 0; i < '#let = 1'.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('Fixed again', { delay: 10 });
    await previewShows(page, 'Fixed again');
    await problems.waitFor({ state: 'detached' });
    assert.equal(await editor.locator('.cm-lintRange-error').count(), 0);
  });

  test('Save writes master-documents/<name>.typ; Render runs the pipeline and opens the ticket, which succeeds', async () => {
    const { page } = b;
    await openPlayground(page, t.url);
    await toEndOfTemplate(page);
    const typed = 'Saved from the Studio playground';
    await page.keyboard.type(typed, { delay: 5 });
    await previewShows(page, typed);
    await page.getByLabel('Template name', { exact: true }).fill('studio-sheet');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const path = 'tenants/acme/projects/shop/master-documents/studio-sheet.typ';
    await page.getByRole('status').filter({ hasText: `Saved ${path}.` }).waitFor();
    const res = await t.fetch(`/rest/repository/files/${path}`, { token: tokens.admin, headers: { accept: '*/*' } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), DEFAULT_TYP + typed);

    await page.getByRole('button', { name: 'Render', exact: true }).click();
    await page.waitForURL(/\/studio\/tickets\/[^/?]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await page.getByRole('heading', { name: `Ticket ${id}` }).waitFor();
    const status = await waitComplete(t, tokens.jobs, id);
    assert.equal(status.errorCode, null, JSON.stringify(status));
    assert.match(status.status ?? '', /\.succeeded$/);
    await page.getByText(`done · ${status.status}`, { exact: true }).waitFor();
    // The pipeline rendered the saved template over the playground's data.
    const text = (await pdfText(await artifactPdf(t, tokens.jobs, id))).join('\n');
    assert.match(text, /Saved from the Studio playground/);
    assert.match(text, /Espresso machine Aurora/);
  });

  test('a 401 mid-session goes back to sign in; after signing in again the editor has everything typed', async () => {
    await setupProject(t, 'acme', 'scratch');
    const { page } = b;
    await openPlayground(page, t.url, 'scratch');
    await toEndOfTemplate(page);
    await page.keyboard.type('Typed before', { delay: 5 });
    await previewShows(page, 'Typed before');
    // The project goes away: its tokens answer 401 once the service's identity cache (10 s) has
    // passed, which the clock skips.
    assert.equal((await t.fetch('/rest/tenants/acme/projects/scratch', { method: 'DELETE', token: tokens.op })).status, 200);
    clock.advance(10_000);
    await page.keyboard.insertText(' and after the 401');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByRole('status').filter({ hasText: /session has ended/ }).waitFor();
    assert.match(page.url(), /\/studio\/playground$/);

    await setupProject(t, 'acme', 'scratch');
    await signIn(page, { project: 'scratch' });
    await templateEditor(page).waitFor();
    await previewShows(page, 'Typed before and after the 401');
    await toEndOfTemplate(page);
    await templateEditor(page).getByText('Typed before and after the 401', { exact: true }).waitFor();
    // The rest of the default template is still there too (its first line).
    await page.keyboard.press('Control+Home');
    await templateEditor(page).getByText(DEFAULT_TYP.split('\n')[0]!, { exact: true }).waitFor();
  });

  test('repository: a config.ion that does not validate shows the error at its property before saving; nothing is written', async () => {
    const path = 'tenants/acme/projects/shop/restapi/config.ion';
    const original = '{\n  keepInputForSeconds: 3600\n}\n';
    await putFile(t, tokens.admin, path, original);
    // The service's own message for a property of the wrong type (the one a PUT would answer).
    const checked = await t.fetch(`/rest/repository/validate/${path}`, { method: 'POST', token: tokens.admin, body: '{ keepInputForSeconds: 3600, fanout: { enabled: "yes" } }', headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(checked.status, 400);
    const detail = ((await checked.json()) as { details: { field?: string; message: string }[] }).details.find((d) => d.field === 'fanout.enabled');
    assert.ok(detail);

    const { page } = b;
    await page.goto(`${t.url}/studio/repository?path=${encodeURIComponent(path)}`);
    await signIn(page);
    const editor = page.getByRole('textbox', { name: 'File content', exact: true });
    await editor.getByText('keepInputForSeconds: 3600').click();
    // A new line 3 (the editor indents it) with that property.
    await page.keyboard.press('End');
    await page.keyboard.type(',', { delay: 5 });
    await page.keyboard.press('Enter');
    await page.keyboard.type('fanout: { enabled: "yes" }', { delay: 5 });
    const marked = editor.locator('.cm-line').filter({ has: page.locator('.cm-lintRange-error') });
    await marked.waitFor();
    const lineText = await marked.innerText();
    assert.equal(lineText.trim(), 'fanout: { enabled: "yes" }');
    // At the property: its last name part, `enabled`, on line 3.
    const expected = `3:${lineText.indexOf('enabled') + 1} fanout.enabled: ${detail.message}`;
    const problems = page.getByRole('list', { name: 'Problems' });
    // The list settles on the last check's answer: one of a half-typed line may still be on screen.
    await eventually(
      () => problems.getByRole('listitem').allInnerTexts(),
      (texts) => texts.length === 1 && texts[0] === expected,
    );

    await page.getByRole('button', { name: 'Save file' }).click();
    await page.getByRole('alert').filter({ hasText: `Not saved: ${expected}` }).waitFor();
    const stored = await t.fetch(`/rest/repository/files/${path}`, { token: tokens.admin, headers: { accept: '*/*' } });
    assert.equal(await stored.text(), original);
  });

  test('a template over the preview size limit is refused with the service message; the next preview works', async () => {
    const { page } = b;
    await openPlayground(page, t.url);
    // Over the 1 MiB limit of a preview's template, in short lines (pasted at once).
    const big = `= Big\n${`${'x'.repeat(99)}\n`.repeat(11_000)}`;
    const res = await t.fetch('/rest/tenants/acme/projects/shop/preview', { method: 'POST', token: tokens.admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ template: big }) });
    assert.equal(res.status, 413);
    const { message } = (await res.json()) as { message: string };
    await templateEditor(page).click();
    await page.keyboard.press('Control+A');
    // As a paste arrives (typing a megabyte through the input path takes minutes in chromium).
    await page.evaluate(`(() => {
      const data = new DataTransfer();
      data.setData('text/plain', ${JSON.stringify(big)});
      document.querySelector('[aria-label="Template"]').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    })()`);
    const alert = page.getByRole('alert').filter({ hasText: `Too large to preview: ${message}` });
    await alert.waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('Small again');
    await previewShows(page, 'Small again');
    await alert.waitFor({ state: 'detached' });
  });

  test('the Studio asked nothing of any other host', () => {
    assert.deepEqual(b.foreignRequests, []);
  });
});

describe('Studio playground time limit [sqlite]', { skip }, () => {
  const LIMIT_MS = 5000;
  let t: TestServer;
  let b: Browser;
  before(async () => {
    ensureStudioBuilt();
    // A short preview time limit, so the endless template is stopped in seconds, not a minute.
    t = await startTestServer('sqlite', { previewTimeoutMs: LIMIT_MS });
    await setupProject(t);
    b = await openBrowser(t.url);
  });
  after(async () => {
    await b?.close();
    await t?.close();
  });

  test('a template that loops forever is stopped at the limit, the error shown, and the service still answers', async () => {
    const { page } = b;
    await openPlayground(page, t.url);
    // About 10^10 loop turns, without using memory (pasted at once, as typing it would compile its halves).
    await templateEditor(page).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('#for i in range(100000) { for j in range(100000) { } }\nnever shown\n');
    const started = Date.now();
    await previewRegion(page).and(page.locator('[aria-busy="true"]')).waitFor();
    // While it runs, the service answers.
    const health = await t.fetch('/healthz', { headers: { accept: '*/*' } });
    assert.equal(health.status, 200);
    const alert = page.getByRole('alert').filter({ hasText: /^Stopped at the time limit: / });
    await alert.waitFor({ timeout: LIMIT_MS + 60_000 });
    assert.ok(Date.now() - started >= LIMIT_MS - 500, `stopped after ${Date.now() - started} ms, not at the limit`);
    assert.match(await alert.innerText(), new RegExp(`${LIMIT_MS} ms`));
    assert.equal((await t.fetch('/healthz', { headers: { accept: '*/*' } })).status, 200);
    // The preview works again for the next text (a new render process replaced the stopped one).
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('Back to normal');
    await previewShows(page, 'Back to normal');
    await alert.waitFor({ state: 'detached' });
  });
});
