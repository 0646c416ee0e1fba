// Prints the OpenAPI document the Fastify app produces (the one served at /rest/openapi.json),
// without listening: the build generates the Studio's API types from it.
// Usage: tsx scripts/openapi-json.ts [output-file]   (stdout without an argument)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadSettings } from '../src/config/settings.js';
import { buildApp } from '../src/http/app.js';
import { createContext } from '../src/server.js';

const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-openapi-'));
try {
  // A throwaway SQLite store: building the app needs a context, the document needs no data.
  const settings = loadSettings({ PRESSROOM_DATA: dataDir, PRESSROOM_LOG_LEVEL: 'silent', PRESSROOM_ADMIN_PASSWORD: 'unused-build-time-only' });
  const ctx = await createContext(settings);
  try {
    const app = await buildApp(ctx);
    await app.ready();
    const text = JSON.stringify(app.swagger(), null, 2) + '\n';
    await app.close();
    const out = process.argv[2];
    if (out) {
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, text);
    }
    else process.stdout.write(text);
  } finally {
    await ctx.close();
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
