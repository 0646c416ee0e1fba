import { AppError } from '../errors.js';

// How the reader refuses an archive (invalid_zip): in its own words, naming the entry.

/** An invalid_zip refusal, naming the entry when there is one. */
export function refuse(message: string, entry?: string, cause?: unknown): AppError {
  const text = entry === undefined ? message : `ZIP entry "${entry}": ${message}`;
  return new AppError('invalid_zip', text, { details: [{ ...(entry === undefined ? {} : { field: entry }), message }], cause });
}

/** Names yauzl lets through but a safe extractor must still refuse. */
export function nameProblem(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'name contains a control character';
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  if (segments.some((s) => s === '')) return 'name has an empty segment';
  if (segments.some((s) => s === '.')) return 'name has a "." segment';
  return undefined;
}

// yauzl refuses zip-slip names itself (strictFileNames); say which entry and why in our words.
const yauzlNameErrors: [RegExp, string][] = [
  [/^absolute path: (.*)$/s, 'absolute paths are not allowed'],
  [/^invalid relative path: (.*)$/s, '".." segments are not allowed'],
  [/^invalid characters in fileName: (.*)$/s, 'backslashes are not allowed'],
];

/** yauzl's own refusal in the reader's words. */
export function fromYauzl(err: Error): AppError {
  for (const [re, message] of yauzlNameErrors) {
    const m = re.exec(err.message);
    if (m) return refuse(message, m[1], err);
  }
  return refuse(`not a readable ZIP: ${err.message}`, undefined, err);
}
