import { sql, type Compilable, type CompiledQuery, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import { keepParsed } from './pg-statements.js';
import type { Database } from './schema.js';

// A parameter value no caller passes: it marks the place of a run's value in a compiled query.
const MARK = '\u0000pressroom-slot:';

/** Stand-ins for the values of a run: each property marks where the value of that name goes. */
export type Slots<V> = { readonly [K in keyof V]: V[K] };

const slots: unknown = new Proxy({}, { get: (_target, name) => MARK + String(name) });

/** Shapes (column sets, row counts) kept compiled per database; past this they are compiled on each run. */
const MAX_SHAPES = 64;

/**
 * A statement Kysely builds and compiles once per database and shape, then runs with each call's
 * values. Building and compiling a query costs more than SQLite running it: a ticket's claim
 * took 374 µs of CPU through the query builder, 158 µs precompiled and run through Kysely,
 * 40 µs as SQLite's own work (1000 claims on a migrated file, one at a time).
 *
 * `build` receives {@link Slots} for the values and must use each value only through them;
 * `shape` names whatever changes the SQL itself (the columns a patch sets, a number of rows)
 * and is passed to `build` so that it can build that shape.
 */
export class Prepared<V extends Record<string, unknown>, R> {
  private readonly compiled = new WeakMap<Kysely<Database>, Map<string, CompiledQuery<R>>>();

  constructor(private readonly build: (db: Kysely<Database>, slots: Slots<V>, shape: string) => Compilable<R>) {}

  /** Runs on `on` — `db` itself or a transaction of it — the statement compiled for `db`'s dialect. */
  async execute(db: Kysely<Database>, on: Kysely<Database>, values: V, shape = ''): Promise<QueryResult<R>> {
    const query = this.compiledFor(db, shape);
    const parameters = query.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? valueOf(values, p.slice(MARK.length)) : p));
    return on.executeQuery({ ...query, parameters });
  }

  private compiledFor(db: Kysely<Database>, shape: string): CompiledQuery<R> {
    let shapes = this.compiled.get(db);
    if (!shapes) this.compiled.set(db, (shapes = new Map()));
    let query = shapes.get(shape);
    if (!query) {
      query = this.build(db, slots as Slots<V>, shape).compile();
      if (shapes.size < MAX_SHAPES) {
        shapes.set(shape, query);
        keepParsed(query.sql);
      }
    }
    return query;
  }
}

function valueOf(values: Record<string, unknown>, name: string): unknown {
  if (!(name in values)) throw new Error(`prepared statement: no value for ${name}`);
  return values[name];
}

/** The values of `rows` named `<row>_<column>`, as a multi-row statement built from slots reads them. */
export function rowValues<T extends object>(rows: readonly T[], columns: readonly (keyof T & string)[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const c of columns) values[`${i}_${c}`] = row[c];
  });
  return values;
}

/** The rows of a multi-row statement as `build` writes them: `count` rows of the slots {@link rowValues} fills. */
export function rowSlots<T>(slots: Record<string, unknown>, count: number, columns: readonly string[]): T[] {
  return Array.from({ length: count }, (_, i) => Object.fromEntries(columns.map((c) => [c, slots[`${i}_${c}`]])) as T);
}

/** `a, b, c`: the parts of a statement written by hand with Kysely's `sql`, comma-separated. */
export function sqlList(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return sql.join(parts, sql`, `);
}
