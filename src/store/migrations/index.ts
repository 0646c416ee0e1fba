import type { Migration } from 'kysely';
import { foundation } from './001-foundation.js';
import { tickets } from './002-tickets.js';

/** Every migration, in order. Names sort lexically; never rename one that shipped. */
export const migrations: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-tickets': tickets,
};
