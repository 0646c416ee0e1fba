/** Response headers as undici returns them (lower-case names). */
export type Headers = Record<string, string | string[] | undefined>;

/** What the HTTP caching headers of a response allow the asset cache to do with it. */
export interface CachePolicy {
  /** Whether the response may be kept at all (no `no-store`, no `Vary: *`, and reusable). */
  store: boolean;
  /** `Cache-Control: private`: kept only for the tenant whose render fetched it. */
  private: boolean;
  /** Epoch ms until which it is served without asking the server (then revalidated). */
  freshUntil: number;
  /** Validators for the conditional request once it is stale. */
  etag: string | null;
  lastModified: string | null;
}

/** One header value (the first when repeated), or null. */
export function header(headers: Headers, name: string): string | null {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

/** Cache-Control directives by lower-case name; a directive without value maps to ''. */
export function parseCacheControl(value: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (value ?? '').split(',')) {
    const m = /^\s*([A-Za-z-]+)\s*(?:=\s*"?([^"]*)"?)?\s*$/.exec(part);
    if (m) out.set(m[1]!.toLowerCase(), m[2] ?? '');
  }
  return out;
}

const seconds = (v: string | undefined): number | null => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);

function dateOf(v: string | null): number | null {
  if (!v) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

/**
 * The caching policy of a 200 or 304 response received at `now`, per RFC 9111 for a shared
 * cache: `s-maxage` over `max-age` over `Expires`; without any of them, heuristic freshness
 * of 10% of the time since `Last-Modified`; `no-cache` means revalidate on every use; the
 * `Age` header counts against freshness; everything is capped at `maxTtlMs`. A response that
 * is neither fresh nor carries a validator is not kept, since it could never be reused.
 */
export function cachePolicy(headers: Headers, now: number, maxTtlMs: number): CachePolicy {
  const cc = parseCacheControl(header(headers, 'cache-control'));
  const etag = header(headers, 'etag');
  const lastModified = header(headers, 'last-modified');
  const date = dateOf(header(headers, 'date')) ?? now;
  let lifetimeMs = 0;
  const explicit = seconds(cc.get('s-maxage')) ?? seconds(cc.get('max-age'));
  if (cc.has('no-cache')) lifetimeMs = 0;
  else if (explicit !== null) lifetimeMs = explicit * 1000;
  else if (header(headers, 'expires') !== null) lifetimeMs = Math.max(0, (dateOf(header(headers, 'expires')) ?? 0) - date);
  else if (dateOf(lastModified) !== null) lifetimeMs = Math.max(0, (date - dateOf(lastModified)!) / 10);
  const ageMs = (seconds(header(headers, 'age') ?? undefined) ?? 0) * 1000;
  const freshForMs = Math.min(Math.max(0, lifetimeMs - ageMs), maxTtlMs);
  const vary = header(headers, 'vary');
  const store = !cc.has('no-store') && !(vary !== null && vary.split(',').some((v) => v.trim() === '*')) && (freshForMs > 0 || etag !== null || lastModified !== null);
  return { store, private: cc.has('private'), freshUntil: now + freshForMs, etag, lastModified };
}
