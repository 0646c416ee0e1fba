import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { STUDIO_DIR } from '../../src/http/studio.js';
import { ADMIN_PASSWORD } from './server.js';

/** Debian's chromium; the browser tests drive it through playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can (node:test `skip`). */
export function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;
  return undefined;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** A build lock older than this was left by a test process that died while building. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * Builds dist/studio with Vite when it is missing or older than src/studio or templates/typst
 * (tests run from source, e.g. right after a fresh clone's `npm install`). The browser test
 * files run side by side, and Vite empties dist/studio when it starts: one process builds under
 * a lock (a folder only one can create) while the others wait for it, then find the build fresh.
 */
export function ensureStudioBuilt(): void {
  const index = join(STUDIO_DIR, 'index.html');
  const root = new URL('../../', import.meta.url).pathname;
  // The Studio bundles the built-in template too (the playground's starting text).
  const sources = Math.max(newestMtime(join(root, 'src', 'studio')), newestMtime(join(root, 'templates', 'typst')));
  const fresh = () => existsSync(index) && statSync(index).mtimeMs >= sources;
  const lock = join(STUDIO_DIR, '..', '.studio-build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  while (!fresh()) {
    try {
      mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); // another process builds: look again shortly
      continue;
    }
    try {
      if (fresh()) return;
      const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('vite build of the Studio failed');
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Requests the page made to any address but the server's own (the Studio must make none). */
  readonly foreignRequests: string[];
  close(): Promise<void>;
}

/** A headless chromium with a fresh profile; every request outside `origin` is refused and recorded. */
export async function openBrowser(origin: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'pressroom-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1440, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const foreignRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    foreignRequests,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Fills the sign-in form the way a person would, by the fields' accessible names. */
export async function signIn(page: Page, opts: { tenant?: string; project?: string; user?: string; password?: string; scope?: 'jobs' | 'admin' } = {}): Promise<void> {
  await page.getByLabel('Tenant', { exact: true }).fill(opts.tenant ?? 'acme');
  await page.getByLabel('Project', { exact: true }).fill(opts.project ?? 'shop');
  await page.getByLabel('User name', { exact: true }).fill(opts.user ?? 'admin');
  await page.getByLabel('Password', { exact: true }).fill(opts.password ?? ADMIN_PASSWORD);
  await page.getByLabel('Scope', { exact: true }).selectOption(opts.scope ?? 'admin');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Waits until `check` holds (polling every 50 ms), or fails after `timeoutMs` with the last value seen. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met after ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
