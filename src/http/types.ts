import type { Principal } from '../auth/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on routes that need a bearer token. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** false: the route needs no bearer token. @defaultValue true */
    auth?: boolean;
    /** Media types the route can send; the Accept header must name one (406 otherwise). */
    produces?: readonly string[];
  }
}

/** The principal of an authenticated route (the auth hook guarantees it). */
export function principalOf(req: { principal: Principal | null }): Principal {
  if (!req.principal) throw new Error('route has no principal; is config.auth false?');
  return req.principal;
}
