/**
 * Why the pool could not deliver a job's result: the time limit (`timeout`), the memory
 * ceiling (`memory`), the process ended or failed (`crash`), the pool was closed, or the caller
 * gave up on the job (`cancelled`).
 */
export type PoolErrorKind = 'timeout' | 'memory' | 'crash' | 'closed' | 'cancelled';

/** A job the pool gave up on; engines word it for their callers. */
export class PoolError extends Error {
  override readonly name = 'PoolError';

  constructor(
    readonly kind: PoolErrorKind,
    message: string,
    /** The limit that was hit, how the process ended (and whether it was still starting), the end of its stderr. */
    readonly detail: { timeoutMs?: number; ceilingMb?: number; how?: string; stderr?: string; starting?: boolean } = {},
  ) {
    super(message);
  }
}
