import type { Logger } from 'pino';
import { mib } from './memory.js';
import { PoolError } from './pool-error.js';
import type { JobWatch } from './process-slot.js';

/** Why a process is replaced during its job; the pool counts each. */
export type ReplaceReason = 'timeout' | 'memory' | 'crash';

/** What a job's watch needs from its pool. */
export interface WatchContext {
  name: string;
  logger: Logger;
  /** The pool's memory ceiling per process; undefined: no memory watch. */
  memoryCeilingBytes: number | undefined;
  pollMs: number | undefined;
  /** The job's ceiling at this moment (it may depend on the other processes). */
  ceilingBytes: () => number;
  /** Fails the job with `err` and replaces its process. */
  replace: (reason: ReplaceReason, err: PoolError) => void;
}

/** The time limit, memory watch and send failure of one job, each replacing its process. */
export function jobWatch(ctx: WatchContext, timeoutMs: number): JobWatch {
  const { name, logger } = ctx;
  return {
    timeoutMs,
    onTimeout: () => {
      logger.warn({ engine: name, timeoutMs }, 'job exceeded its time limit; stopping its process');
      ctx.replace('timeout', new PoolError('timeout', `${name} job stopped after ${timeoutMs} ms (time limit)`, { timeoutMs }));
    },
    ...(ctx.memoryCeilingBytes === undefined
      ? {}
      : {
          ceilingBytes: ctx.ceilingBytes,
          pollMs: ctx.pollMs ?? 25,
          onCeiling: (rss: number, ceiling: number) => {
            logger.warn({ engine: name, rssMb: mib(rss), ceilingMb: mib(ceiling) }, 'job passed the memory ceiling; stopping its process');
            ctx.replace('memory', memoryError(name, ceiling));
          },
        }),
    onSendError: (err) => ctx.replace('crash', sendError(name, err)),
  };
}

/** A job stopped at its process's memory ceiling. */
export function memoryError(name: string, ceilingBytes: number): PoolError {
  const ceilingMb = mib(ceilingBytes);
  return new PoolError('memory', `${name} process passed the memory ceiling of ${ceilingMb} MiB and was stopped`, { ceilingMb });
}

/** A job that could not be written to its process. */
export function sendError(name: string, err: Error): PoolError {
  return new PoolError('crash', `could not hand the job to the ${name} process (${err.message})`);
}

/** Why a process that ended during its job ended, as the pool counts it, and the job's error. */
export function endedDuringJob(name: string, slot: { stderr: string; diedOfMemory(): boolean; ceilingOr(fallback: number): number }, ceiling: number | undefined, how: string): { reason: 'memory' | 'crash'; error: PoolError } {
  if (ceiling !== undefined && slot.diedOfMemory()) return { reason: 'memory', error: memoryError(name, slot.ceilingOr(ceiling)) };
  return { reason: 'crash', error: new PoolError('crash', `${name} process ended (${how}) during the job`, { how, stderr: slot.stderr }) };
}
