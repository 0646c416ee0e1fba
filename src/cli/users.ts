import { parseArgs } from 'node:util';
import { addUser, listUsers, removeUser, scopes, setPassword, type Scope } from '../auth/index.js';
import type { Db } from '../store/index.js';
import { onStore } from './on-store.js';
import { promptSecret, readStdin } from './prompt.js';

export const usersUsage = `usage: pressroom users add <name> --tenant T --project P --scope jobs|admin [--password-stdin]
       pressroom users list [--tenant T] [--json]
       pressroom users remove <name> [--tenant T]   (without --tenant: an operator)
       pressroom users passwd <name> --tenant T [--project P] [--password-stdin]`;

/** What a valid command line asks for; checked before the store is opened. */
type Request =
  | { sub: 'add'; name: string; tenant: string; project: string; scope: Scope; passwordStdin: boolean }
  | { sub: 'list'; tenant: string | undefined; json: boolean }
  | { sub: 'remove'; name: string; tenant: string | undefined }
  | { sub: 'passwd'; name: string; tenant: string; project: string | undefined; passwordStdin: boolean };

/** Parses `users …` arguments; a string is the problem to report with the usage. */
function parse(args: string[]): Request | string {
  const [sub, ...rest] = args;
  let parsed;
  try {
    parsed = parseArgs({
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
  } catch (err) {
    return (err as Error).message;
  }
  const { values, positionals } = parsed;
  switch (sub) {
    case 'add': {
      const name = positionals[0];
      if (!name || positionals.length > 1 || !values.tenant || !values.project || !values.scope) return 'users add needs <name>, --tenant, --project and --scope';
      if (!scopes.includes(values.scope as Scope)) return `--scope must be one of ${scopes.join(', ')}`;
      return { sub, name, tenant: values.tenant, project: values.project, scope: values.scope as Scope, passwordStdin: values['password-stdin'] === true };
    }
    case 'list':
      if (positionals.length > 0) return 'users list takes no positional arguments';
      return { sub, tenant: values.tenant, json: values.json === true };
    case 'remove': {
      const name = positionals[0];
      if (!name || positionals.length > 1) return 'users remove needs exactly one <name>';
      return { sub, name, tenant: values.tenant };
    }
    case 'passwd': {
      const name = positionals[0];
      if (!name || positionals.length > 1 || !values.tenant) return 'users passwd needs <name> and --tenant';
      if (values.scope !== undefined || values.json !== undefined) return 'users passwd takes only --tenant, --project and --password-stdin';
      return { sub, name, tenant: values.tenant, project: values.project, passwordStdin: values['password-stdin'] === true };
    }
    default:
      return sub === undefined ? 'users needs a subcommand' : `unknown users subcommand "${sub}"`;
  }
}

async function run(db: Db, req: Request): Promise<void> {
  switch (req.sub) {
    case 'add': {
      const password = req.passwordStdin ? await readStdin() : await promptSecret(`password for ${req.name}: `);
      const user = await addUser(db, { name: req.name, tenant: req.tenant, project: req.project, scope: req.scope, password });
      process.stdout.write(`added user ${user.name} (tenant ${user.tenant}, project ${user.project}, scope ${user.scope})\n`);
      return;
    }
    case 'list': {
      const list = await listUsers(db, req.tenant);
      if (req.json) process.stdout.write(JSON.stringify(list, null, 2) + '\n');
      else for (const u of list) process.stdout.write(`${u.operator ? '(operator)' : `${u.tenant}/${u.project}`}\t${u.name}\t${u.scope}\t${u.created}\n`);
      return;
    }
    case 'remove':
      await removeUser(db, req.name, req.tenant);
      process.stdout.write(`removed user ${req.name}\n`);
      return;
    case 'passwd': {
      const password = req.passwordStdin ? await readStdin() : await promptSecret(`new password for ${req.name}: `);
      const user = await setPassword(db, { name: req.name, tenant: req.tenant, ...(req.project !== undefined ? { project: req.project } : {}), password });
      process.stdout.write(`changed the password of user ${user.name} (tenant ${user.tenant}, project ${user.project}); its tokens no longer work\n`);
    }
  }
}

/**
 * `pressroom users add|list|remove|passwd`: works on the store directly, with or without a running
 * server. Exit 2 for a bad command line (with the usage), 1 when the store refuses.
 */
export async function usersCommand(args: string[]): Promise<number> {
  const req = parse(args);
  if (typeof req === 'string') {
    process.stderr.write(`${req}\n${usersUsage}\n`);
    return 2;
  }
  return onStore((db) => run(db, req));
}
