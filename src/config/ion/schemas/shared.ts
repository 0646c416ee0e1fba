import { r, type Rule } from '../schema.js';

/** Values shared by several step folders (contract: Limits and configuration). */
export const keepWhen = r.oneOf('never', 'onerror', 'onsuccess', 'always');
export const keepUntil = r.oneOf('shipped', 'expired', 'shippedOrExpired', 'forever');

/** One redelivery rule; the first rule whose codePattern matches the exit code applies. */
export const redeliverOnError = r.list(
  r.struct({
    codePattern: r.regex(),
    maxRedeliveries: r.int(0, 100),
    redeliverIntervalMillis: r.int(0),
    maxAgeMillis: r.int(0),
  }),
);

const authentication = r.struct(
  {
    type: r.oneOf('ApiKey', 'OAuth2'),
    key: r.string(),
    value: r.secret(),
    grantType: r.oneOf('ClientCredentials', 'AuthorizationCode'),
    clientId: r.string(),
    clientSecret: r.secret(),
    codeVerifier: r.secret(),
    redirectUri: r.string(),
    params: r.map(r.secret()),
    scope: r.string(),
    tokenUrl: r.url(),
  },
  {
    required: ['type'],
    check: (a) => {
      const missing = (names: string[]) => names.filter((n) => a[n] === undefined || a[n] === null).map((n) => ({ field: n, message: `is required for type ${String(a.type)}` }));
      if (a.type === 'ApiKey') return missing(['key', 'value']);
      if (a.type === 'OAuth2') return missing(['grantType', 'clientId', 'clientSecret']);
      return [];
    },
  },
);

const connectionBase = {
  url: r.url(),
  method: r.oneOf('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  authentication,
  payload: r.list(r.struct({ value: r.string() })),
  scope: r.string(),
  headers: r.map(r.secret()),
  // pressroom: redirects are failures unless followed; time limits of one delivery.
  followRedirects: r.int(0, 10),
  timeoutMillis: r.int(100, 3_600_000),
  connectTimeoutMillis: r.int(100, 600_000),
};

/** The schema of a webhook step folder (upload, callback, error): connections and redelivery. */
export function webhookConfig<E extends Record<string, Rule> = Record<never, Rule>>(extra: E = {} as E) {
  return r.struct({
    connections: r.list(r.struct({ ...connectionBase, ...extra }, { required: ['url'] })),
    redeliverOnError,
  });
}
