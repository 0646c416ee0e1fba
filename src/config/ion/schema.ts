import { RE2JS } from 're2js';

/** What one config property may hold. Every property may also be null (= use the default). */
export type Rule =
  | { readonly t: 'string'; readonly pattern?: RegExp; readonly patternDoc?: string; readonly values?: readonly string[] }
  | { readonly t: 'secret' }
  | { readonly t: 'urls'; readonly single: boolean }
  | { readonly t: 'regex' }
  | { readonly t: 'int'; readonly min: number; readonly max: number }
  | { readonly t: 'bool' }
  | { readonly t: 'list'; readonly items: Rule }
  | { readonly t: 'map'; readonly values: Rule }
  | StructRule;

/** A struct with known property names; `check` adds rules that span properties. */
export interface StructRule<P extends Readonly<Record<string, Rule>> = Readonly<Record<string, Rule>>> {
  readonly t: 'struct';
  readonly props: P;
  readonly required?: readonly string[];
  readonly check?: (value: Record<string, unknown>) => { field: string; message: string }[];
}

/**
 * The value a rule admits once validated and merged, like TypeBox's Static: merging drops null
 * properties of structs (the default applies), while list entries are kept as written.
 */
export type Static<R> = R extends { t: 'list'; items: infer I } ? Written<I>[] : R extends { t: 'struct'; props: infer P } ? { [K in keyof P]?: Static<P[K]> } : Scalar<R>;
/** A value as a file holds it: every struct property may also be null. */
type Written<R> = R extends { t: 'list'; items: infer I } ? Written<I>[] : R extends { t: 'struct'; props: infer P } ? { [K in keyof P]?: Written<P[K]> | null } : Scalar<R>;
type Scalar<R> = R extends { t: 'string'; values: readonly (infer V)[] }
  ? V
  : R extends { t: 'string' | 'secret' | 'urls' | 'regex' }
    ? string
    : R extends { t: 'int' }
      ? number
      : R extends { t: 'bool' }
        ? boolean
        : R extends { t: 'map'; values: infer V }
          ? Record<string, Written<V>>
          : never;

/** Builders for the step schemas: `r.int(0, 10)`, `r.oneOf('a', 'b')`, `r.struct({...})`; each keeps its type for Static. */
export const r = {
  string: () => ({ t: 'string' }) as const,
  matching: (pattern: RegExp, patternDoc: string) => ({ t: 'string', pattern, patternDoc }) as const,
  oneOf: <const V extends string>(...values: V[]): { readonly t: 'string'; readonly values: readonly V[] } => ({ t: 'string', values }),
  /** A secret: plain text, or sealed as the string `{sealed:…}` or the struct `{sealed: "…"}`. */
  secret: () => ({ t: 'secret' }) as const,
  /** Absolute http(s) URLs separated by whitespace (`{placeholders}` allowed). */
  urls: () => ({ t: 'urls', single: false }) as const,
  url: () => ({ t: 'urls', single: true }) as const,
  /** A regular expression in RE2 syntax (linear time, no backreferences or lookaround). */
  regex: () => ({ t: 'regex' }) as const,
  int: (min = 0, max = Number.MAX_SAFE_INTEGER): { readonly t: 'int'; readonly min: number; readonly max: number } => ({ t: 'int', min, max }),
  bool: () => ({ t: 'bool' }) as const,
  list: <I extends Rule>(items: I) => ({ t: 'list', items }) as const,
  map: <V extends Rule>(values: V) => ({ t: 'map', values }) as const,
  struct: <P extends Record<string, Rule>>(props: P, extra: { required?: string[]; check?: StructRule['check'] } = {}): StructRule<P> => ({ t: 'struct', props, ...extra }),
};

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'a struct' : `${typeof v} ${JSON.stringify(v)}`);

function checkUrl(text: string): string | undefined {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : `${JSON.stringify(text)} is not an http or https URL`;
  } catch {
    return `${JSON.stringify(text)} is not an absolute URL`;
  }
}

/** Checks a scalar; returns a problem, or undefined with the (maybe normalised) value. */
export function checkScalar(rule: Exclude<Rule, StructRule | { t: 'list' } | { t: 'map' }>, v: unknown): { problem?: string; value?: unknown } {
  switch (rule.t) {
    case 'bool':
      return typeof v === 'boolean' ? { value: v } : { problem: `must be true or false, not ${kind(v)}` };
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v)) return { problem: `must be an integer, not ${kind(v)}` };
      if (v < rule.min || v > rule.max) return { problem: `must be from ${rule.min} to ${rule.max}, not ${v}` };
      return { value: v };
    case 'secret':
      if (typeof v === 'string') return { value: v };
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const keys = Object.keys(v);
        const sealed = (v as Record<string, unknown>).sealed;
        if (keys.length === 1 && typeof sealed === 'string') return { value: `{sealed:${sealed}}` };
      }
      return { problem: `must be a string or a sealed value {sealed:…}, not ${kind(v)}` };
    default:
      break;
  }
  if (typeof v !== 'string') return { problem: `must be a string, not ${kind(v)}` };
  if (rule.t === 'urls') {
    const parts = v.split(/\s+/).filter(Boolean);
    if (parts.length === 0) return { problem: 'must hold a URL' };
    if (rule.single && parts.length > 1) return { problem: 'must be one URL' };
    const bad = parts.map(checkUrl).find(Boolean);
    return bad ? { problem: bad } : { value: v };
  }
  if (rule.t === 'regex') {
    if (v.length > 256) return { problem: 'regular expression longer than 256 characters' };
    try {
      RE2JS.compile(v);
      return { value: v };
    } catch (err) {
      return { problem: `is not a valid regular expression: ${(err as Error).message}` };
    }
  }
  if (rule.values && !rule.values.includes(v)) return { problem: `must be one of ${rule.values.join(', ')}, not ${JSON.stringify(v)}` };
  if (rule.pattern && !rule.pattern.test(v)) return { problem: `must be ${rule.patternDoc ?? `like ${rule.pattern.source}`}, not ${JSON.stringify(v)}` };
  return { value: v };
}
