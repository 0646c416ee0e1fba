import type { Context } from '../context.js';
import type { TicketPatch, TicketRow } from '../store/index.js';
import type { StepOutcome } from './step.js';

/**
 * One log line and the step series per committed step: what operators search and alert on.
 * A deferred step (an aggregate whose parts are not done) changed nothing and reports nothing.
 */
export function reportStep(ctx: Context, ticket: TicketRow, step: string, outcome: StepOutcome, patch: TicketPatch, time: { claimedAt: number; ms: number }): void {
  if (outcome.kind === 'deferred') return;
  const kind = outcome.kind === 'succeeded' ? 'succeeded' : patch.next === step && patch.complete !== 1 ? 'redelivered' : 'failed';
  const errorCode = outcome.kind === 'failed' ? outcome.errorCode : null;
  ctx.metrics.stepFinished(step, ticket.target, kind, errorCode, time.ms / 1000);
  const line = {
    ticket: ticket.id,
    tenant: ticket.tenant,
    project: ticket.project,
    step,
    attempt: ticket.attempt,
    outcome: kind,
    errorCode,
    durationMs: Math.round(time.ms),
    queuedMs: Math.max(0, time.claimedAt - ticket.run_after),
  };
  if (kind === 'succeeded') ctx.logger.info(line, 'step succeeded');
  else ctx.logger.warn({ ...line, errorMessage: outcome.kind === 'failed' ? outcome.errorMessage : undefined }, kind === 'redelivered' ? 'step failed; redelivery scheduled' : 'step failed');
}
