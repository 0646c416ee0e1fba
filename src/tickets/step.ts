import type { TicketErrorCode } from '../errors.js';
import type { Context } from '../context.js';
import type { StepConfigs } from '../repository/step-configs.js';
import type { ArtifactRow, TicketRow } from '../store/index.js';
import type { TicketParams } from './params.js';

/** What a step is handed: the context, the claimed ticket, its parsed parameters and its configuration. */
export interface StepInput {
  readonly ctx: Context;
  readonly ticket: TicketRow;
  readonly params: TicketParams;
  /** The effective configuration, resolved once per ticket step and shared with the worker's redelivery rules. */
  readonly config: StepConfigs;
  /**
   * The input as intake received it, when intake handed the ticket straight to this process's
   * worker: its stored copy may still be being written, so the step reads this instead.
   */
  readonly received?: Buffer;
}

/**
 * A step's typed outcome. `failed` carries an errorCode (an HTTP-like number as a string,
 * matched by redelivery rules' `codePattern`) and a readable message.
 */
export type StepOutcome =
  | {
      kind: 'succeeded';
      artifacts: ArtifactRow[];
      outputName?: string;
      /** The bytes of the output `outputName` names, still in memory: handed to a synchronous request of this process waiting for the ticket. */
      outputBytes?: Buffer;
      msecs?: number;
      pages?: number;
      messages?: string[];
      /** The output reached its destination (an upload answered 2xx): it counts as shipped. */
      shipped?: true;
    }
  | {
      /** Not ready yet (an aggregate waiting for its parts): run again at `runAfter`, status unchanged. */
      kind: 'deferred';
      runAfter: number;
      artifacts: ArtifactRow[];
      messages?: string[];
    }
  | {
      kind: 'failed';
      errorCode: string;
      errorMessage: string;
      artifacts: ArtifactRow[];
      msecs?: number;
      messages?: string[];
      /** The far end asked for a pause (`Retry-After`): a redelivery waits at least this long. */
      retryAfterMs?: number;
    };

/** A pipeline step: one entry point, typed outcome. Unexpected throws count as errorCode 500. */
export interface Step {
  readonly name: string;
  run(input: StepInput): Promise<StepOutcome>;
}

/** A step's expected failure, thrown inside a step and turned into its `failed` outcome. */
export class StepFailure extends Error {
  constructor(
    readonly code: TicketErrorCode,
    message: string,
  ) {
    super(message);
  }
}
