import { AppError } from '../errors.js';

/** What an S3 store's error messages name: the bucket and the endpoint, never a credential. */
export interface S3Where {
  readonly bucket: string;
  readonly endpoint: string;
}

const credentialErrors = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired', 'AuthorizationHeaderMalformed', 'InvalidClientTokenId']);
const networkCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  errors?: { code?: string }[];
}

/** True when the SDK says the object (not the bucket) is missing. */
export function isNoSuchKey(err: unknown): boolean {
  const e = err as SdkError;
  return e.name === 'NoSuchKey' || (e.name === 'NotFound' && e.$metadata?.httpStatusCode === 404);
}

/** One sentence on why the store cannot be used, for logs, /readyz and ticket messages. */
export function describeS3Error(err: unknown, where: S3Where): string {
  const e = err as SdkError;
  const name = e.name ?? 'Error';
  // Node reports a refused connection to a name with several addresses as an AggregateError.
  const code = e.code ?? e.errors?.find((x) => x.code)?.code;
  const status = e.$metadata?.httpStatusCode;
  if (name === 'NoSuchBucket') return `bucket ${where.bucket} does not exist at ${where.endpoint}`;
  if (credentialErrors.has(name)) {
    return `${where.endpoint} refused the credentials (${name}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the AWS profile or the instance role`;
  }
  if (name === 'CredentialsProviderError') {
    return 'no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or give the process an instance or pod role';
  }
  if (name === 'AccessDenied' || status === 403) {
    return `access to bucket ${where.bucket} denied (${name}): the credentials need s3:ListBucket, s3:GetObject, s3:PutObject, s3:DeleteObject and s3:AbortMultipartUpload on it`;
  }
  if ((code && networkCodes.has(code)) || name === 'TimeoutError') return `endpoint ${where.endpoint} not reachable (${code ?? name})`;
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${e.message ?? 'no message'}`;
}

/** The error a blob operation throws when S3 refuses or cannot be reached: 503 blob_unavailable. */
export function s3Failure(err: unknown, where: S3Where, op?: string, key?: string): AppError {
  if (err instanceof AppError) return err;
  const what = op === undefined ? '' : key === undefined ? ` (${op})` : ` (${op} ${key})`;
  return new AppError('blob_unavailable', `blob store unavailable: ${describeS3Error(err, where)}${what}`, { cause: err });
}
