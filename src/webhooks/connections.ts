/** The three webhook steps; each has its own config folder with the same connection shape. */
export type WebhookStep = 'upload' | 'callback' | 'error';

/** `authentication` of a connection (validated by config/ion/schemas/shared.ts). Secrets may be sealed. */
export interface Authentication {
  type: 'ApiKey' | 'OAuth2';
  key?: string;
  value?: string;
  grantType?: 'ClientCredentials' | 'AuthorizationCode';
  clientId?: string;
  clientSecret?: string;
  codeVerifier?: string;
  redirectUri?: string;
  params?: Record<string, string>;
  scope?: string;
  tokenUrl?: string;
}

/** One `exportParams` entry of an upload connection. */
export interface ExportParam {
  name: string;
  source?: 'headers' | 'jsonBody' | 'xmlBody';
  path: string;
}

/** One entry of `connections` in upload/, callback/ or error/config.ion. */
export interface Connection {
  url: string;
  method?: string;
  authentication?: Authentication;
  payload?: { value: string }[];
  scope?: string;
  headers?: Record<string, string>;
  'use-chunked-transfer'?: boolean;
  exportParams?: ExportParam[];
  uploadType?: string;
  followRedirects?: number;
  timeoutMillis?: number;
  connectTimeoutMillis?: number;
}

/** The connections of a resolved step config (already validated on write). */
export function connectionsOf(config: Record<string, unknown>): Connection[] {
  return Array.isArray(config.connections) ? (config.connections as Connection[]) : [];
}

/**
 * The connection whose `url` is the longest prefix of `target`, else undefined (the default
 * request applies). Plain string prefixes, as the contract says: `https://a.example/x` also
 * matches `https://a.example/xy`, so end a prefix with `/` to mean a folder.
 */
export function matchConnection(connections: readonly Connection[], target: string): Connection | undefined {
  let best: Connection | undefined;
  for (const c of connections) {
    if (typeof c.url !== 'string' || !target.startsWith(c.url)) continue;
    if (!best || c.url.length > best.url.length) best = c;
  }
  return best;
}
