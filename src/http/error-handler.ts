import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorCatalogue, type ErrorDetail } from '../errors.js';

/** The body of every error answer. */
export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  code: string;
  message: string;
  path: string;
  details?: ErrorDetail[];
}

function body(req: FastifyRequest, status: number, code: string, message: string, details?: ErrorDetail[]): ErrorBody {
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    code,
    message,
    path: req.url.split('?')[0] ?? req.url,
    ...(details ? { details } : {}),
  };
}

const fastifyCodes: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'bad_request' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'bad_request' },
};

/** The first catalogue code with this status (a 404 from Fastify is `not_found`, not `bad_request`). */
function codeForStatus(status: number): string {
  const hit = Object.entries(errorCatalogue).find(([, e]) => e.status === status);
  return hit ? hit[0] : 'bad_request';
}

/** Ajv's message, naming the allowed values of an enum (Ajv only says "one of the allowed values"). */
function describe(v: { keyword?: string; message?: string; params?: unknown }): string {
  const params = v.params as { allowedValues?: unknown[]; additionalProperty?: string } | undefined;
  if (v.keyword === 'enum' && Array.isArray(params?.allowedValues)) return `must be one of ${params.allowedValues.join(', ')}`;
  if (v.keyword === 'additionalProperties' && params?.additionalProperty) return `has an unknown property ${params.additionalProperty}`;
  return v.message ?? 'is invalid';
}

/** Sends an AppError (or anything else, as a plain 500) in the one error shape. */
export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof AppError) {
    if (err.status >= 500) req.log.error({ err: err.options.cause ?? err, code: err.code }, err.publicMessage);
    if (err.options.headers) void reply.headers(err.options.headers);
    const payload = err.options.body ?? { ...body(req, err.status, err.code, err.publicMessage, err.status === 400 ? (err.details ?? [{ message: err.publicMessage }]) : err.details), ...err.options.extra };
    return reply.code(err.status).type('application/json').send(payload);
  }
  const fe = err as FastifyError;
  if (fe.validation) {
    const details = fe.validation.map((v) => ({
      field:
        (v.instancePath ? v.instancePath.replace(/^\//, '').replace(/\//g, '.') : ((v.params as { missingProperty?: string })?.missingProperty ?? (v.params as { additionalProperty?: string })?.additionalProperty)) ||
        fe.validationContext ||
        'request',
      message: `${fe.validationContext ?? 'request'}${v.instancePath ? ` ${v.instancePath.slice(1)}` : ''} ${describe(v)}`,
    }));
    return reply.code(400).type('application/json').send(body(req, 400, 'bad_request', details.map((d) => d.message).join('; '), details));
  }
  const mapped = fe.code ? fastifyCodes[fe.code] : undefined;
  if (mapped) {
    return reply.code(mapped.status).type('application/json').send(body(req, mapped.status, mapped.code, fe.message, mapped.status === 400 ? [{ message: fe.message }] : undefined));
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = codeForStatus(fe.statusCode);
    return reply.code(fe.statusCode).type('application/json').send(body(req, fe.statusCode, code, fe.message, fe.statusCode === 400 ? [{ message: fe.message }] : undefined));
  }
  req.log.error({ err }, 'unhandled error');
  return reply.code(500).type('application/json').send(body(req, 500, 'internal', 'internal error'));
}

/** Installs the error and not-found handlers. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => sendError(req, reply, new AppError('not_found', `no resource at ${req.method} ${req.url.split('?')[0]}`)));
}
