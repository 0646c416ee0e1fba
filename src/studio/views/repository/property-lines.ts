import type { Marker } from '../playground/code-editor';

/**
 * Where a config error belongs: the service names the property (`fanout.enabled`,
 * `connections[0].url`); the first line that defines it (or, failing that, its last name part)
 * gets the marker, else line 1.
 */
export function markProperty(text: string, field: string | undefined, message: string): Marker {
  const lines = text.split('\n');
  const names = field ? [field, field.replace(/\[\d+\]/g, '').split('.').pop() ?? ''] : [];
  for (const name of names.filter(Boolean)) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(`(^|[\\s{,])(['"]?)${escaped}\\2\\s*:`);
    const i = lines.findIndex((l) => re.test(l));
    if (i >= 0) {
      const column = lines[i]!.search(new RegExp(`['"]?${escaped}`)) + 1;
      return { line: i + 1, column: Math.max(1, column), message: field ? `${field}: ${message}` : message, severity: 'error' };
    }
  }
  return { line: 1, column: 1, message: field ? `${field}: ${message}` : message, severity: 'error' };
}
