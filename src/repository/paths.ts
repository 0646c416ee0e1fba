import { AppError } from '../errors.js';

/** Where a repository path lives: global files, a tenant's files, or a project's files. */
export type PathScope = { readonly kind: 'global' } | { readonly kind: 'tenant'; readonly tenant: string } | { readonly kind: 'project'; readonly tenant: string; readonly project: string };

/** A validated repository path and the scope it belongs to. */
export interface RepoPath {
  /** Normalised (NFC), `/`-separated, no leading or trailing slash; '' is the root folder. */
  readonly path: string;
  readonly scope: PathScope;
}

export const MAX_PATH_LENGTH = 1024;
export const MAX_SEGMENT_LENGTH = 255;

// Unicode letters and digits (with combining marks, as macOS writes them), space and a few
// punctuation marks. Everything else — notably `%`, `\`, `:`, `*`, quotes — is refused.
const segmentChars = /^[\p{L}\p{M}\p{N} ._+@()-]+$/u;

function invalid(raw: string, reason: string, field = 'path'): AppError {
  const message = `invalid repository path ${JSON.stringify(raw)}: ${reason}`;
  return new AppError('invalid_path', message, { details: [{ field, message: reason }] });
}

function problemOf(path: string, allowRoot: boolean): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return 'control characters (NUL included) are not allowed';
  if (path.includes('%')) return 'percent signs are not allowed (percent-encoded names are refused, not decoded again)';
  if (path.includes('\\')) return 'backslashes are not allowed; separate folders with /';
  if (path === '') return allowRoot ? undefined : 'the path is empty';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'absolute paths are not allowed; paths start at the repository root without a slash';
  if (path.length > MAX_PATH_LENGTH) return `longer than ${MAX_PATH_LENGTH} characters`;
  for (const segment of path.split('/')) {
    if (segment === '') return 'empty segments (// or a trailing /) are not allowed';
    if (segment === '.' || segment === '..') return `"${segment}" segments are not allowed`;
    if (segment.length > MAX_SEGMENT_LENGTH) return `a segment is longer than ${MAX_SEGMENT_LENGTH} characters`;
    if (!segmentChars.test(segment)) return `segment ${JSON.stringify(segment)} has a character other than letters, digits, space and . _ - + @ ( )`;
    if (segment.trim() !== segment) return `segment ${JSON.stringify(segment)} starts or ends with a space`;
  }
  return undefined;
}

function scopeOf(segments: string[]): PathScope {
  if (segments[0] !== 'tenants' || segments.length < 2) return { kind: 'global' };
  const tenant = segments[1]!;
  if (segments[2] !== 'projects' || segments.length < 4) return { kind: 'tenant', tenant };
  return { kind: 'project', tenant, project: segments[3]! };
}

/** Validates the path of a repository file (400 invalid_path) and tells its scope. */
export function parseFilePath(raw: string, field?: string): RepoPath {
  const path = raw.normalize('NFC');
  const problem = problemOf(path, false);
  if (problem) throw invalid(raw, problem, field);
  const segments = path.split('/');
  // The folders that hold tenants and projects cannot be files themselves.
  if (segments[0] === 'tenants' && segments.length < 3) throw invalid(raw, 'files under tenants/ belong in a tenant folder: tenants/<tenant>/<file>', field);
  if (segments[0] === 'tenants' && segments[2] === 'projects' && segments.length < 5) {
    throw invalid(raw, 'files under projects/ belong in a project folder: tenants/<tenant>/projects/<project>/<file>', field);
  }
  return { path, scope: scopeOf(segments) };
}

/** Validates a folder path ('' is the root) and tells its scope. */
export function parseFolderPath(raw: string, field?: string): RepoPath {
  const path = raw.normalize('NFC').replace(/\/$/, '');
  const problem = problemOf(path, true);
  if (problem) throw invalid(raw, problem, field);
  return { path, scope: path === '' ? { kind: 'global' } : scopeOf(path.split('/')) };
}

/** The folder prefix of a scope, ending in `/` ('' for global). */
export function scopePrefix(scope: PathScope): string {
  if (scope.kind === 'global') return '';
  if (scope.kind === 'tenant') return `tenants/${scope.tenant}/`;
  return `tenants/${scope.tenant}/projects/${scope.project}/`;
}
