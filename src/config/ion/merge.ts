import { setOwn } from './parse.js';

const isStruct = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Deep-merges `over` into a copy of `base` (RFC 7386 style): structs merge, arrays and
 * scalars replace, and null removes the key so the built-in default applies again.
 */
export function mergeConfig(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) if (v !== null) setOwn(out, k, isStruct(v) ? mergeConfig({}, v) : v);
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete out[k];
    else if (isStruct(v)) {
      const prev = out[k];
      setOwn(out, k, mergeConfig(isStruct(prev) ? prev : {}, v));
    }
    else setOwn(out, k, v);
  }
  return out;
}

/** Writes a plain value as Ion text; JSON is valid Ion, so the file stays readable by both. */
export function toIonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
