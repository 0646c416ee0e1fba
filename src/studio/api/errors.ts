/** The service's error body (docs/errors.md), as far as the Studio reads it. */
export interface ErrorBody {
  status?: number;
  code?: string;
  message?: string;
  details?: { field?: string; message: string }[];
  diagnostics?: { file: string; line: number; column: number; message: string; severity: 'error' | 'warning' }[];
}

/** A non-2xx answer of the API: status, the service's code and its readable message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? `request failed with HTTP ${status}`);
  }

  get code(): string | undefined {
    return this.body.code;
  }
}

/** A readable sentence for any failure of a call, for the views' alerts. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 403) return `Not allowed: ${err.message}`;
    if (err.status === 404) return `Not found: ${err.message}`;
    return err.message;
  }
  if (err instanceof Error) return err.name === 'AbortError' ? 'cancelled' : `The service could not be reached: ${err.message}`;
  return String(err);
}
