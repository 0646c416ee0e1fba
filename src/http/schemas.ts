import { Type, type TSchema } from '@sinclair/typebox';

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
  { $id: 'ErrorBody' },
);

/** Standard error responses for a route: pass the statuses it can answer. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorBody')]));
}
