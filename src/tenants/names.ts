import { RE2JS } from 're2js';
import { AppError } from '../errors.js';
import { SYSTEM_TENANT } from '../auth/index.js';

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Tenant and project names: 1-64 of A-Z a-z 0-9 _ -, starting with a letter or digit. */
export function assertName(kind: 'tenant' | 'project', name: string): void {
  if (!namePattern.test(name)) {
    throw new AppError('bad_request', `${kind} name "${name}" is invalid: use 1-64 of A-Z a-z 0-9 _ -, starting with a letter or digit`, {
      details: [{ field: 'name', message: `invalid ${kind} name` }],
    });
  }
  if (kind === 'tenant' && name.toLowerCase() === SYSTEM_TENANT) {
    throw new AppError('bad_request', `tenant name "${SYSTEM_TENANT}" is reserved for operator tokens`, { details: [{ field: 'name', message: 'reserved name' }] });
  }
}

/**
 * A name filter: a glob (`*`, `?`) unless it starts with `^` or ends with `$`, then a
 * regular expression. Regexes run on RE2 (linear time), so no pattern can backtrack.
 */
export function nameFilter(pattern: string | undefined): (name: string) => boolean {
  if (pattern === undefined || pattern === '') return () => true;
  if (pattern.length > 256) throw new AppError('invalid_pattern', 'pattern longer than 256 characters', { details: [{ field: 'pattern', message: 'too long' }] });
  const isRegex = pattern.startsWith('^') || pattern.endsWith('$');
  const source = isRegex ? pattern : '^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$';
  try {
    const re = RE2JS.compile(source);
    return (name) => re.matcher(name).find();
  } catch (err) {
    throw new AppError('invalid_pattern', `pattern is not a valid regular expression: ${(err as Error).message}`, { details: [{ field: 'pattern', message: 'invalid' }] });
  }
}
