import { isBlobOutage } from '../blobs/index.js';
import type { Context } from '../context.js';
import { ticketErrorCodes } from '../errors.js';
import type { TicketRow } from '../store/index.js';
import type { Step, StepInput, StepOutcome } from './step.js';

/**
 * Runs a ticket's step and turns whatever it throws into its outcome: a blob store outage is no
 * bug (its message says what is wrong, and its code is redeliverable); anything else is an
 * internal error, logged unless the ticket was released at shutdown meanwhile (`quiet`). The
 * step's input is built inside, so that what building it throws is the step's failure too.
 */
export async function runStep(ctx: Context, ticket: TicketRow, step: Step | undefined, name: string, input: () => StepInput, quiet: () => boolean): Promise<StepOutcome> {
  if (!step) return { kind: 'failed', errorCode: ticketErrorCodes.internal, errorMessage: `no worker implements step ${name}`, artifacts: [] };
  try {
    return await step.run(input());
  } catch (err) {
    if (isBlobOutage(err)) {
      ctx.logger.warn({ ticket: ticket.id, step: name, problem: err.publicMessage }, 'step failed: blob store unavailable');
      return { kind: 'failed', errorCode: ticketErrorCodes.unavailable, errorMessage: `${name}: ${err.publicMessage}`, artifacts: [] };
    }
    if (!quiet()) ctx.logger.error({ err, ticket: ticket.id, step: name }, 'step threw');
    return { kind: 'failed', errorCode: ticketErrorCodes.internal, errorMessage: `internal error in step ${name}`, artifacts: [] };
  }
}
