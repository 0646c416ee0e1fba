import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Principal } from '../auth/index.js';
import type { RawBodyDoc } from './schemas.js';

/** The app as route plugins see it: request and reply types come from the route schemas. */
export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

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
  interface FastifySchema {
    /** A body read as raw bytes, shown per media type in OpenAPI and never validated (see schemas.ts). */
    rawBody?: RawBodyDoc;
  }
}

/** The principal of an authenticated route (the auth hook guarantees it). */
export function principalOf(req: { principal: Principal | null }): Principal {
  if (!req.principal) throw new Error('route has no principal; is config.auth false?');
  return req.principal;
}
