import { makeReader, type Reader } from 'ion-js';

/** A problem found in a config file: which property (dotted path, '' for the whole file) and what. */
export interface ConfigProblem {
  readonly field: string;
  readonly message: string;
}

/** Thrown by the Ion parser and the config validators; the repository turns it into invalid_config. */
export class ConfigFileError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join('; '));
  }
}

const MAX_DEPTH = 64;

/** Sets an own property even for names like `__proto__`, which plain assignment would treat specially. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function scalar(r: Reader, type: string): unknown {
  switch (type) {
    case 'bool':
      return r.booleanValue();
    case 'int': {
      const n = r.bigIntValue();
      return n === null ? null : Number(n);
    }
    case 'float':
      return r.numberValue();
    case 'decimal':
      return r.decimalValue()?.numberValue() ?? null;
    case 'timestamp':
      return r.timestampValue()?.getDate().toISOString() ?? null;
    case 'string':
    case 'symbol':
      return r.stringValue();
    case 'blob':
    case 'clob': {
      const bytes = r.uInt8ArrayValue();
      return bytes === null ? null : Buffer.from(bytes).toString('base64');
    }
    default:
      throw new Error(`unexpected Ion type ${type}`);
  }
}

function value(r: Reader, depth: number, where: string): unknown {
  const type = r.type()!.name;
  if (r.isNull()) return null;
  if (type !== 'struct' && type !== 'list' && type !== 'sexp') return scalar(r, type);
  if (depth >= MAX_DEPTH) throw new ConfigFileError([{ field: where, message: `nested more than ${MAX_DEPTH} levels deep` }]);
  r.stepIn();
  try {
    if (type === 'struct') {
      const out: Record<string, unknown> = {};
      while (r.next() !== null) {
        const name = r.fieldName() ?? '';
        const field = where ? `${where}.${name}` : name;
        if (Object.prototype.hasOwnProperty.call(out, name)) throw new ConfigFileError([{ field, message: 'property appears twice' }]);
        setOwn(out, name, value(r, depth + 1, field));
      }
      return out;
    }
    const items: unknown[] = [];
    while (r.next() !== null) items.push(value(r, depth + 1, `${where}[${items.length}]`));
    return items;
  } finally {
    r.stepOut();
  }
}

/**
 * Parses Ion (text or binary) into plain JavaScript values, one per top-level value:
 * structs become objects, lists and s-expressions arrays, numbers and decimals numbers,
 * symbols strings, timestamps ISO strings, blobs base64; annotations are dropped.
 */
export function parseIon(data: Buffer | string): unknown[] {
  const values: unknown[] = [];
  try {
    const r = makeReader(typeof data === 'string' ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    while (r.next() !== null) values.push(value(r, 0, ''));
  } catch (err) {
    if (err instanceof ConfigFileError) throw err;
    throw new ConfigFileError([{ field: '', message: `not valid Ion: ${(err as Error).message}` }]);
  }
  return values;
}

/** Parses an Ion document that must hold at most one struct (a config file); empty means {}. */
export function parseIonStruct(data: Buffer | string): Record<string, unknown> {
  const values = parseIon(data);
  if (values.length === 0) return {};
  if (values.length > 1) throw new ConfigFileError([{ field: '', message: `holds ${values.length} top-level values; a config file holds one struct` }]);
  const [v] = values;
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new ConfigFileError([{ field: '', message: 'the top-level value must be a struct { … }' }]);
  return v as Record<string, unknown>;
}
