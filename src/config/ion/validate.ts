import { setOwn, type ConfigProblem } from './parse.js';
import { checkScalar, type Rule, type StructRule } from './schema.js';

const isStruct = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

function unknownMessage(name: string, known: string[]): string {
  const near = known.filter((k) => distance(name, k) <= Math.max(2, Math.floor(k.length / 4))).sort((a, b) => distance(name, a) - distance(name, b));
  return near.length > 0 ? `unknown property; did you mean ${near[0]}?` : `unknown property; known: ${known.join(', ')}`;
}

/**
 * Turns dotted keys (`"fanout.enabled": true`) into nested structs, but only where the
 * prefix names a struct property: map keys such as header names may contain dots.
 */
function expandDotted(rule: StructRule, value: Record<string, unknown>, where: string, problems: ConfigProblem[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const merge = (key: string, v: unknown) => {
    const existing = out[key];
    if (!Object.prototype.hasOwnProperty.call(out, key)) return setOwn(out, key, v);
    if (isStruct(existing) && isStruct(v)) {
      for (const [k, inner] of Object.entries(v)) {
        if (Object.prototype.hasOwnProperty.call(existing, k)) problems.push({ field: `${where}${key}.${k}`, message: 'given twice (nested and dotted)' });
        else setOwn(existing, k, inner);
      }
      return;
    }
    problems.push({ field: `${where}${key}`, message: 'given twice (nested and dotted)' });
  };
  for (const [key, v] of Object.entries(value)) {
    const dot = key.indexOf('.');
    const head = dot > 0 ? key.slice(0, dot) : key;
    if (dot > 0 && rule.props[head]?.t === 'struct') merge(head, { [key.slice(dot + 1)]: v });
    else merge(key, isStruct(v) ? { ...v } : v);
  }
  return out;
}

/** Validates a value against a rule, collecting every problem; returns the normalised value. */
export function validateValue(rule: Rule, value: unknown, field: string, problems: ConfigProblem[]): unknown {
  if (value === null) return null;
  const prefix = field ? `${field}.` : '';
  switch (rule.t) {
    case 'struct': {
      if (!isStruct(value)) {
        problems.push({ field, message: `must be a struct { … }, not ${Array.isArray(value) ? 'a list' : typeof value}` });
        return value;
      }
      const expanded = expandDotted(rule, value, prefix, problems);
      const out: Record<string, unknown> = {};
      const known = Object.keys(rule.props);
      for (const [key, v] of Object.entries(expanded)) {
        const inner = rule.props[key];
        if (!inner || !Object.prototype.hasOwnProperty.call(rule.props, key)) problems.push({ field: prefix + key, message: unknownMessage(key, known) });
        else setOwn(out, key, validateValue(inner, v, prefix + key, problems));
      }
      for (const key of rule.required ?? []) if (out[key] === undefined || out[key] === null) problems.push({ field: prefix + key, message: 'is required' });
      for (const p of rule.check?.(out) ?? []) problems.push({ field: prefix + p.field, message: p.message });
      return out;
    }
    case 'list': {
      if (!Array.isArray(value)) {
        problems.push({ field, message: 'must be a list [ … ]' });
        return value;
      }
      return value.map((item, i) => validateValue(rule.items, item, `${field}[${i}]`, problems));
    }
    case 'map': {
      if (!isStruct(value)) {
        problems.push({ field, message: 'must be a struct of names to values' });
        return value;
      }
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(value)) setOwn(out, key, validateValue(rule.values, v, prefix + key, problems));
      return out;
    }
    default: {
      const res = checkScalar(rule, value);
      if (res.problem) problems.push({ field, message: res.problem });
      return res.problem ? value : res.value;
    }
  }
}
