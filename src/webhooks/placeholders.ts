/** How a value is written into its template: the surrounding syntax decides what must be escaped. */
export type Escape = (value: string) => string;

// `{name}` and `${name}` are the same placeholder; names are word characters, dots and dashes, so
// JSON braces (`{"a": 1}`) are never mistaken for one.
const PLACEHOLDER = /\$?\{([A-Za-z_][\w.-]*)\}/g;

/** Escapes for the places a placeholder can stand in. */
export const escapes = {
  /** Inside a URL: percent-encoded, so a value can never add a path segment or a query parameter. */
  url: (v: string) => encodeURIComponent(v),
  /** Inside a JSON string literal: the literal's content, without the quotes. */
  json: (v: string) => JSON.stringify(v).slice(1, -1),
  /** Inside XML text or an attribute value. */
  xml: (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;'),
  /** Inside a header value: line breaks would start a new header, so they become spaces. */
  header: (v: string) => v.replace(/[\r\n]+/g, ' '),
  none: (v: string) => v,
} satisfies Record<string, Escape>;

/** Replaces every known `{name}` / `${name}` in `template`; unknown names stay as written. */
export function fill(template: string, values: Readonly<Record<string, string>>, escape: Escape): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? escape(values[name]!) : whole));
}

/** The escape a payload template needs, chosen by the Content-Type the request will carry. */
export function escapeFor(contentType: string): Escape {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return escapes.json;
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return escapes.xml;
  if (type === 'application/x-www-form-urlencoded') return escapes.url;
  return escapes.none;
}
