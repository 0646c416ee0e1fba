import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../errors.js';
import { users, type Db } from '../store/index.js';
import { checkNewPassword, hashPassword, randomPassword } from './passwords.js';
import { namePattern, OPERATOR_TENANT } from './users.js';

/**
 * Operators: users of no tenant who administer the service. A cluster creates its first one with
 * `pressroom operator create`; only the embedded `serve` (role all) does it by itself.
 */

/** Creates an operator; a generated password is returned so that the caller can show it once. */
export async function createOperator(db: Db, input: { name: string; password: string | null }): Promise<{ name: string; generatedPassword: string | null }> {
  if (!namePattern.test(input.name)) throw new AppError('bad_request', 'user name must be 1-128 of A-Z a-z 0-9 . _ @ -');
  const password = input.password ?? randomPassword();
  checkNewPassword(password);
  const inserted = await users.insertUser(db.kysely, {
    name: input.name,
    tenant: OPERATOR_TENANT,
    project: OPERATOR_TENANT,
    scope: 'admin',
    password_hash: await hashPassword(password),
    operator: 1,
    created: Date.now(),
  });
  if (!inserted) throw new AppError('conflict', `operator ${input.name} exists; use operator reset-password`);
  return { name: input.name, generatedPassword: input.password === null ? password : null };
}

/** Gives an operator a new password (its tokens stop working); a generated one is returned. */
export async function resetOperatorPassword(db: Db, input: { name: string; password: string | null }): Promise<{ name: string; generatedPassword: string | null }> {
  const password = input.password ?? randomPassword();
  checkNewPassword(password);
  const row = await users.findUser(db.kysely, OPERATOR_TENANT, input.name);
  if (!row || row.operator !== 1) throw new AppError('not_found', `operator ${input.name} not found`);
  if (!(await users.updatePasswordHash(db.kysely, OPERATOR_TENANT, input.name, await hashPassword(password)))) {
    throw new AppError('not_found', `operator ${input.name} not found`);
  }
  return { name: input.name, generatedPassword: input.password === null ? password : null };
}

/**
 * The embedded service's first start: creates the operator `admin` when no operator exists (also
 * after `pressroom users remove admin`, to recover a lost password). The password is the
 * configured one, else generated and written only to `<data>/initial-admin-password` (0600):
 * `report` receives the file's name, never the password, since it goes to a log.
 */
export async function bootstrapOperator(db: Db, opts: { password: string | null; dataDir: string; report: (message: string) => void }): Promise<boolean> {
  if ((await users.listUsers(db.kysely, OPERATOR_TENANT)).length > 0) return false;
  const password = opts.password ?? randomPassword();
  const file = join(opts.dataDir, 'initial-admin-password');
  const pending = `${file}.${process.pid}.tmp`;
  if (opts.password === null) {
    // Written before the operator exists, so a failing write cannot lose the only copy; named
    // for good only when this process's operator is the one created.
    await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
    await writeFile(pending, password + '\n', { mode: 0o600 });
  }
  const created = await createOperator(db, { name: 'admin', password }).then(
    () => true,
    (err: unknown) => {
      // Another process on the same store won the race; its operator stands.
      if (err instanceof AppError && err.code === 'conflict') return false;
      throw err;
    },
  );
  if (opts.password === null) {
    if (created) await rename(pending, file);
    else await rm(pending, { force: true });
  }
  if (created) {
    opts.report(opts.password === null ? `created operator "admin"; its password is in ${file} (readable by this user only)` : 'created operator "admin" with the password from PRESSROOM_ADMIN_PASSWORD');
  }
  return created;
}
