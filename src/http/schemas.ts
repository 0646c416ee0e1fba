import { STATUS_CODES } from 'node:http';
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** The error body every endpoint answers with (see docs/errors.md). */
export const ErrorBody = Type.Object(
  {
    timestamp: Type.String({ format: 'date-time' }),
    status: Type.Integer(),
    error: Type.String({ description: 'HTTP reason phrase' }),
    code: Type.String({ description: 'pressroom error code (docs/errors.md)' }),
    message: Type.String(),
    path: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.Optional(Type.String()), message: Type.String() }))),
  },
  { $id: 'ErrorBody', description: 'The error body of every endpoint (docs/errors.md)' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** A reference to a shared schema (added with addSchema), typed as the schema it points to. */
export function ref<T extends TSchema>(schema: T, description?: string): TUnsafe<Static<T>> {
  if (!schema.$id) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: schema.$id, ...(description ? { description } : {}) });
}

/** Standard error responses for a route: pass the statuses it can answer. */
export function errors(...statuses: number[]): Record<number, TUnsafe<ErrorBody>> {
  return Object.fromEntries(statuses.map((s) => [s, ref(ErrorBody, STATUS_CODES[s] ?? 'Error')] as const));
}

const binary = { type: 'string', format: 'binary' } as const;

/**
 * A response of raw bytes in one of several media types. Fastify never serialises a stream or
 * buffer, so this only documents the answer (OpenAPI `type: string, format: binary` per type).
 */
export function binaryResponse(description: string, mediaTypes: readonly string[]): TUnsafe<unknown> {
  return Type.Unsafe<unknown>({ description, content: Object.fromEntries(mediaTypes.map((t) => [t, { schema: binary }])) });
}

/** What a raw request body holds per media type, for the OpenAPI document only (`examples` fill "Try it out"). */
export type RawBodyDoc = Record<string, { schema: Record<string, unknown> }>;

/**
 * A request body read as raw bytes (every body is a Buffer; the route checks the media type and
 * answers 415 itself). Nothing validates it; the OpenAPI document shows it per media type.
 */
export function rawBody(mediaTypes: readonly string[], overrides: RawBodyDoc = {}): RawBodyDoc {
  return Object.fromEntries(mediaTypes.map((t) => [t, overrides[t] ?? { schema: binary }]));
}
