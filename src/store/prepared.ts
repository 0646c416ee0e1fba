import { sql, type Compilable, type CompiledQuery, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import { keepParsed } from './pg-statements.js';
import type { Database } from './schema.js';

// A parameter value no caller passes: it marks the place of a run's value in a compiled query.
const MARK = '\u0000pressroom-slot:';
// Separates the parts of a mark that reaches into a value: `<name>␁<column>` or `<name>␁<row>␁<column>`.
const PART = '\u0001';

/** Stand-ins for the values of a run: each property marks where the value of that name goes. */
export type Slots<V> = { readonly [K in keyof V]: V[K] };

const slots: unknown = new Proxy({}, { get: (_target, name) => MARK + String(name) });

/** Shapes (column sets, row counts) kept compiled per database; past this they are compiled on each run. */
const MAX_SHAPES = 64;

/**
 * Where one parameter of a compiled statement comes from: a constant of the statement, a value
 * of the run, a column of an object of the run, or a column of one of its rows.
 */
interface Bind {
  readonly fixed: unknown;
  readonly name: string | null;
  readonly row: number;
  readonly column: string | null;
}

interface Compiled<R> {
  readonly query: CompiledQuery<R>;
  readonly binds: readonly Bind[];
}

/**
 * A statement Kysely builds and compiles once per database and shape, then runs with each call's
 * values. Building and compiling a query costs more than SQLite running it: a ticket's claim
 * took 374 µs of CPU through the query builder, 158 µs precompiled and run through Kysely,
 * 40 µs as SQLite's own work (1000 claims on a migrated file, one at a time).
 *
 * `build` receives {@link Slots} for the values and must use each value only through them (or
 * {@link fieldSlots}, {@link rowSlots} for the columns of an object or rows among the values);
 * `shape` names whatever changes the SQL itself (the columns a patch sets, a number of rows)
 * and is passed to `build` so that it can build that shape.
 *
 * Rows and patches are read where they are, column by column, rather than copied into values
 * named `<row>_<column>`: building those names and that object took 20–30 µs for a ticket's
 * 42 columns, reading the row directly 2 µs.
 */
export class Prepared<V extends Record<string, unknown>, R> {
  private readonly compiled = new WeakMap<Kysely<Database>, Map<string, Compiled<R>>>();

  constructor(private readonly build: (db: Kysely<Database>, slots: Slots<V>, shape: string) => Compilable<R>) {}

  /** Runs on `on` — `db` itself or a transaction of it — the statement compiled for `db`'s dialect. */
  async execute(db: Kysely<Database>, on: Kysely<Database>, values: V, shape = ''): Promise<QueryResult<R>> {
    const { query, binds } = this.compiledFor(db, shape);
    const parameters = new Array<unknown>(binds.length);
    for (let i = 0; i < binds.length; i++) parameters[i] = bound(binds[i]!, values);
    return on.executeQuery({ ...query, parameters });
  }

  private compiledFor(db: Kysely<Database>, shape: string): Compiled<R> {
    let shapes = this.compiled.get(db);
    if (!shapes) this.compiled.set(db, (shapes = new Map()));
    let compiled = shapes.get(shape);
    if (!compiled) {
      const query = this.build(db, slots as Slots<V>, shape).compile();
      compiled = { query, binds: query.parameters.map(bindOf) };
      if (shapes.size < MAX_SHAPES) {
        shapes.set(shape, compiled);
        keepParsed(query.sql);
      }
    }
    return compiled;
  }
}

function bindOf(parameter: unknown): Bind {
  if (typeof parameter !== 'string' || !parameter.startsWith(MARK)) return { fixed: parameter, name: null, row: -1, column: null };
  const parts = parameter.slice(MARK.length).split(PART);
  if (parts.length === 1) return { fixed: undefined, name: parts[0]!, row: -1, column: null };
  if (parts.length === 2) return { fixed: undefined, name: parts[0]!, row: -1, column: parts[1]! };
  return { fixed: undefined, name: parts[0]!, row: Number(parts[1]), column: parts[2]! };
}

function bound(bind: Bind, values: Record<string, unknown>): unknown {
  if (bind.name === null) return bind.fixed;
  if (!(bind.name in values)) throw new Error(`prepared statement: no value for ${bind.name}`);
  const value = values[bind.name];
  if (bind.column === null) return value;
  if (bind.row < 0) return (value as Record<string, unknown>)[bind.column];
  const row = (value as readonly Record<string, unknown>[])[bind.row];
  if (row === undefined) throw new Error(`prepared statement: no row ${bind.row} in ${bind.name}`);
  return row[bind.column];
}

/** Slots for the columns of the object that is the run's value `name` (a patch, one row). */
export function fieldSlots<T, V>(slots: Slots<V>, name: keyof V & string, columns: readonly string[]): T {
  return Object.fromEntries(columns.map((c) => [c, `${String(slots[name])}${PART}${c}`])) as T;
}

/** Slots for `count` rows of the array of rows that is the run's value `name`, as a multi-row statement writes them. */
export function rowSlots<T, V>(slots: Slots<V>, name: keyof V & string, count: number, columns: readonly string[]): T[] {
  return Array.from({ length: count }, (_, i) => Object.fromEntries(columns.map((c) => [c, `${String(slots[name])}${PART}${i}${PART}${c}`])) as T);
}

/** `a, b, c`: the parts of a statement written by hand with Kysely's `sql`, comma-separated. */
export function sqlList(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return sql.join(parts, sql`, `);
}
