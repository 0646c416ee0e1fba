import { parseArgs } from 'node:util';
import { seal, sealKey } from '../config/sealed.js';
import { loadSettings } from '../config/settings.js';
import { migrate, openDb } from '../store/index.js';
import { readStdin } from './prompt.js';

export const sealUsage = `usage: pressroom seal <value>
       pressroom seal --stdin      (reads the value from standard input; keeps it out of shell history)`;

/**
 * `pressroom seal`: prints `{sealed:…}` for a secret, encrypted under the deployment's seal key
 * (PRESSROOM_SEAL_KEY, else the key kept in the store, which is opened for it).
 */
export async function sealCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { stdin: { type: 'boolean' } } });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${sealUsage}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.stdin ? positionals.length !== 0 : positionals.length !== 1) {
    process.stderr.write(`seal needs exactly one value, or --stdin\n${sealUsage}\n`);
    return 2;
  }
  const value = values.stdin ? await readStdin() : positionals[0]!;
  if (value === '') {
    process.stderr.write(`seal: the value is empty\n${sealUsage}\n`);
    return 2;
  }
  const settings = loadSettings();
  if (settings.sealKey) {
    process.stdout.write(seal(Buffer.from(settings.sealKey, 'base64'), value) + '\n');
    return 0;
  }
  const db = openDb(settings);
  try {
    await migrate(db, settings.databaseSchema);
    process.stdout.write(seal(await sealKey(settings, db.kysely), value) + '\n');
    return 0;
  } finally {
    await db.close();
  }
}
