import { parseArgs } from 'node:util';
import { addUser, listUsers, removeUser } from '../auth/index.js';
import { loadSettings } from '../config/settings.js';
import { AppError } from '../errors.js';
import { migrate, openDb } from '../store/index.js';
import { promptSecret, readStdin } from './prompt.js';

/** `pressroom users add|list|remove`: works on the store directly, with or without a running server. */
export async function usersCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      tenant: { type: 'string' },
      project: { type: 'string' },
      scope: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const settings = loadSettings();
  const db = openDb(settings);
  try {
    await migrate(db, settings.databaseSchema);
    switch (sub) {
      case 'add': {
        const name = positionals[0];
        if (!name || !values.tenant || !values.project || !values.scope) {
          process.stderr.write('usage: pressroom users add <name> --tenant T --project P --scope jobs|admin [--password-stdin]\n');
          return 2;
        }
        const password = values['password-stdin'] ? await readStdin() : await promptSecret(`password for ${name}: `);
        const user = await addUser(db, { name, tenant: values.tenant, project: values.project, scope: values.scope, password });
        process.stdout.write(`added user ${user.name} (tenant ${user.tenant}, project ${user.project}, scope ${user.scope})\n`);
        return 0;
      }
      case 'list': {
        const list = await listUsers(db, values.tenant);
        if (values.json) process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        else for (const u of list) process.stdout.write(`${u.operator ? '(operator)' : `${u.tenant}/${u.project}`}\t${u.name}\t${u.scope}\t${u.created}\n`);
        return 0;
      }
      case 'remove': {
        const name = positionals[0];
        if (!name) {
          process.stderr.write('usage: pressroom users remove <name> [--tenant T]\n');
          return 2;
        }
        await removeUser(db, name, values.tenant);
        process.stdout.write(`removed user ${name}\n`);
        return 0;
      }
      default:
        process.stderr.write('usage: pressroom users add|list|remove …\n');
        return 2;
    }
  } catch (err) {
    if (err instanceof AppError) {
      process.stderr.write(`error: ${err.publicMessage}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}
