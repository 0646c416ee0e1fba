// Prints the OpenAPI document (/rest/openapi.json) without starting a server: the app is built on a
// throwaway SQLite data folder and never listens. Generated clients (the Studio's types, the client
// test) are made from this output: `node --import tsx scripts/openapi-json.ts > openapi.json`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../src/config/settings.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';

const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-openapi-'));
try {
  const settings = loadSettings({ PRESSROOM_DATA: dataDir, PRESSROOM_LOG_LEVEL: 'silent' });
  const ctx = await createContext(settings);
  try {
    const app = await buildApp(ctx);
    await app.ready();
    process.stdout.write(JSON.stringify(app.swagger(), null, 2) + '\n');
    await app.close();
  } finally {
    await ctx.close();
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
