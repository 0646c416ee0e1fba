import { parseArgs } from 'node:util';
import { createOperator, resetOperatorPassword } from '../auth/index.js';
import { MIN_PASSWORD_LENGTH } from '../config/settings.js';
import { onStore } from './on-store.js';
import { readStdin } from './prompt.js';

export const operatorUsage = `usage: pressroom operator create [<name>] [--password-stdin]
       pressroom operator reset-password [<name>] [--password-stdin]

  create           adds an operator (default name: admin), e.g. the first one of a cluster
  reset-password   gives an operator a new password; its tokens stop working

The password is read from standard input with --password-stdin (at least ${MIN_PASSWORD_LENGTH}
characters); without it one is generated and printed once, here, on standard output.`;

type Request = { sub: 'create' | 'reset-password'; name: string; passwordStdin: boolean } | { sub: 'help' };

function parse(args: string[]): Request | string {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h' || sub === 'help') return { sub: 'help' };
  if (sub !== 'create' && sub !== 'reset-password') return sub === undefined ? 'operator needs a subcommand' : `unknown operator subcommand "${sub}"`;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options: { 'password-stdin': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    return (err as Error).message;
  }
  if (parsed.values.help) return { sub: 'help' };
  if (parsed.positionals.length > 1) return `operator ${sub} takes at most one <name>`;
  return { sub, name: parsed.positionals[0] ?? 'admin', passwordStdin: parsed.values['password-stdin'] === true };
}

/**
 * `pressroom operator create|reset-password`: works on the store directly, so a cluster's first
 * operator is made by whoever runs the command, on their terminal, and never by a server process.
 */
export async function operatorCommand(args: string[]): Promise<number> {
  const req = parse(args);
  if (typeof req === 'string') {
    process.stderr.write(`${req}\n${operatorUsage}\n`);
    return 2;
  }
  if (req.sub === 'help') {
    process.stdout.write(operatorUsage + '\n');
    return 0;
  }
  const password = req.passwordStdin ? await readStdin() : null;
  return onStore(async (db) => {
    const done = req.sub === 'create' ? await createOperator(db, { name: req.name, password }) : await resetOperatorPassword(db, { name: req.name, password });
    const what = req.sub === 'create' ? `created operator ${done.name}` : `changed the password of operator ${done.name}; its tokens no longer work`;
    process.stdout.write(done.generatedPassword === null ? `${what}\n` : `${what}\npassword (shown only now): ${done.generatedPassword}\n`);
  });
}
