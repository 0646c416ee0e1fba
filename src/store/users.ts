import type { Kysely, Selectable } from 'kysely';
import type { Database, UsersTable } from './schema.js';

export type UserRow = Selectable<UsersTable>;

/** Finds a user by tenant and name; operators live under tenant ''. */
export async function findUser(db: Kysely<Database>, tenant: string, name: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('tenant', '=', tenant).where('name', '=', name).executeTakeFirst();
}

/** Inserts a user; false when the name is taken in that tenant. */
export async function insertUser(db: Kysely<Database>, row: UserRow): Promise<boolean> {
  const res = await db.insertInto('users').values(row).onConflict((oc) => oc.columns(['tenant', 'name']).doNothing()).executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Replaces a user's password hash; true when the user exists. */
export async function updatePasswordHash(db: Kysely<Database>, tenant: string, name: string, passwordHash: string): Promise<boolean> {
  const res = await db.updateTable('users').set({ password_hash: passwordHash }).where('tenant', '=', tenant).where('name', '=', name).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Lists users, optionally of one tenant. */
export async function listUsers(db: Kysely<Database>, tenant?: string): Promise<UserRow[]> {
  let q = db.selectFrom('users').selectAll().orderBy('tenant').orderBy('name');
  if (tenant !== undefined) q = q.where('tenant', '=', tenant);
  return q.execute();
}

/** Deletes a user; true when one was removed. */
export async function deleteUser(db: Kysely<Database>, tenant: string, name: string): Promise<boolean> {
  const res = await db.deleteFrom('users').where('tenant', '=', tenant).where('name', '=', name).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Removes the users of a tenant, or of one of its projects. */
export async function deleteUsersOf(db: Kysely<Database>, tenant: string, project?: string): Promise<void> {
  let q = db.deleteFrom('users').where('tenant', '=', tenant);
  if (project !== undefined) q = q.where('project', '=', project);
  await q.execute();
}
