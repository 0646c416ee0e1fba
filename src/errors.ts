/**
 * The one error type of pressroom. Modules throw `AppError` with a code from
 * the catalogue; the HTTP layer maps it to a status and sends only the public
 * message. docs/errors.md documents every code; a test keeps them in step.
 */
export const errorCatalogue = {
  bad_request: { status: 400, doc: 'A parameter or the body is missing or invalid; `details` says which.' },
  invalid_config: { status: 400, doc: 'A config.ion file is not valid Ion or a property is unknown, of the wrong type or out of range.' },
  invalid_path: { status: 400, doc: 'A repository path is not allowed (`..`, absolute, backslash, NUL, percent sign, empty segment).' },
  invalid_zip: { status: 400, doc: 'A ZIP is corrupt, or has unsafe names, links, lying sizes, too many entries or too much data.' },
  invalid_xml: { status: 400, doc: 'XML input is not well-formed or declares a DOCTYPE (DTDs and entities are refused).' },
  invalid_pattern: { status: 400, doc: 'A `pattern` is not a valid (linear-time) regular expression or glob.' },
  invalid_grant: { status: 401, doc: 'Token service: user name or password wrong, or the user is not entitled to that tenant or project.' },
  invalid_scope: { status: 400, doc: 'Token service: the user does not hold the requested scope.' },
  invalid_request: { status: 400, doc: 'Token service: a form field is missing or malformed.' },
  unauthorized: { status: 401, doc: 'The bearer token is missing, malformed, expired or not signed by this deployment.' },
  quota_exceeded: { status: 402, doc: 'The rendering quota of the tenant or project is used up.' },
  forbidden: { status: 403, doc: 'The token is not entitled to the tenant, project or resource, notably by scope.' },
  not_found: { status: 404, doc: 'Tenant, project, ticket, file or other resource not found (or not visible to this token).' },
  method_not_allowed: { status: 405, doc: 'The method is not allowed on this resource.' },
  not_acceptable: { status: 406, doc: 'The Accept header is missing or names no type this endpoint can send.' },
  render_timeout: { status: 408, doc: 'Synchronous render not finished within `timeToWait`; the body is the RenderResult.' },
  conflict: { status: 409, doc: 'The tenant, project or user exists already.' },
  idempotency_in_progress: { status: 409, doc: 'Render: a request with the same Idempotency-Key is still in progress; retry later.' },
  idempotency_mismatch: { status: 422, doc: 'Render: the Idempotency-Key was used in the last 24 h with a different request (body, Content-Type or query parameters).' },
  template_error: { status: 422, doc: 'Preview: the Typst template does not compile; `diagnostics` lists each message with its file, line and column.' },
  payload_too_large: { status: 413, doc: 'The request body is larger than the configured limit.' },
  unsupported_media_type: { status: 415, doc: 'The Content-Type is not accepted by this endpoint.' },
  range_not_satisfiable: { status: 416, doc: 'The `Range` header names no byte of the file (the `Content-Range` header gives its length).' },
  rate_limited: { status: 429, doc: 'Token service: too many failed token requests for this user name or from this address; `Retry-After` says when to try again.' },
  internal: { status: 500, doc: 'Unknown error; the cause is logged, not sent.' },
  render_failed: { status: 500, doc: 'Synchronous mode: the ticket failed; the message carries its status, errorCode and error message.' },
  no_fanout_data: { status: 500, doc: 'The input could not be enqueued because no fanout data was found.' },
  unavailable: { status: 503, doc: 'The service is starting or stopping, or too busy unpacking ZIP uploads (`Retry-After` says when to try again).' },
  blob_unavailable: { status: 503, doc: 'The blob store cannot be used: S3 endpoint unreachable, credentials refused, bucket missing, or the blob folder not writable. Retry later.' },
  backend_timeout: { status: 504, doc: 'A backend did not respond in time.' },
  template_timeout: { status: 504, doc: 'Preview: the template ran past the render time limit (`maxExecutionMillis`, else the service setting) and was stopped.' },
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorDetail {
  /** What the detail is about: a parameter, a property, a path, an operation index. */
  readonly field?: string;
  readonly message: string;
}

/** A failure with a public message safe to send to the client. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly publicMessage: string,
    readonly options: { details?: ErrorDetail[]; cause?: unknown; headers?: Record<string, string>; body?: unknown; extra?: Record<string, unknown> } = {},
  ) {
    super(publicMessage, { cause: options.cause });
    this.status = errorCatalogue[code].status;
  }

  get details(): ErrorDetail[] | undefined {
    return this.options.details;
  }
}

/** Shorthands for the errors raised most often. */
export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const badRequest = (message: string, field?: string): AppError =>
  new AppError('bad_request', message, { details: [{ ...(field ? { field } : {}), message }] });
export const forbidden = (message = 'token not entitled to this resource'): AppError => new AppError('forbidden', message);

/**
 * The `errorCode` values a failed ticket step records (HTTP-like, matched by redelivery
 * `codePattern`s), one table for every step. Webhook steps also record the target's own HTTP
 * status when it answered non-2xx. docs/errors.md documents each; a test keeps them in step.
 */
export const ticketErrorCodes = {
  /** Render: the stored input is missing or unusable; convert: the page or option set is not valid. */
  input: '400',
  /** Webhooks: the target's address is not allowed. */
  refused: '403',
  /** A template, master, stylesheet, the PDF to convert or an aggregate part's output is not stored. */
  notFound: '404',
  /** Convert: the pageset's raster is too large. */
  tooLarge: '413',
  /** A template, master or stylesheet failed, the PDF is unreadable, or a webhook configuration is unusable. */
  unprocessable: '422',
  /** Aggregate: a fanout part failed. */
  partFailed: '424',
  /** Internal error (a crashed process, a step that threw); details in the service log. */
  internal: '500',
  /** Webhooks: network failure, or an answer without what was needed. */
  network: '502',
  /** The blob store could not be used (unreachable, credentials refused, bucket gone); redeliverable. */
  unavailable: '503',
  /** A render, transform, conversion, delivery or aggregate ran past its time limit. */
  timeout: '504',
  /** A render, transform or conversion process passed the memory ceiling (PRESSROOM_RENDER_MAX_MEMORY_MB). */
  memory: '507',
} as const;

export type TicketErrorCode = (typeof ticketErrorCodes)[keyof typeof ticketErrorCodes];
