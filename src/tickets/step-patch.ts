import type { StepConfigs } from '../repository/step-configs.js';
import type { TicketPatch, TicketRow } from '../store/index.js';
import type { TicketParams } from './params.js';
import { errorStep, stepAfter } from './pipeline.js';
import { redeliveryDelay } from './redelivery.js';
import type { StepOutcome } from './step.js';

/** Steps whose config.ion holds `redeliverOnError`; the others (convert, aggregate) are never redelivered. */
const redeliverySteps = ['renderpdf', 'renderpptx', 'upload', 'callback', 'error'] as const;
const hasRedeliveryRules = (step: string): step is (typeof redeliverySteps)[number] => (redeliverySteps as readonly string[]).includes(step);

/** A finished step of a ticket, and what decides where the ticket goes next. */
export interface FinishedStep {
  ticket: TicketRow;
  step: string;
  params: TicketParams;
  config: StepConfigs;
  outcome: StepOutcome;
  /** The steps this process's worker runs: a step without one is skipped. */
  implemented: ReadonlySet<string>;
  now: number;
}

/**
 * The change a step's outcome makes to its ticket: its status, the next step (or none: the
 * ticket is complete), and for a failure a redelivery under the step's `redeliverOnError` rules
 * or the way to the error step.
 */
export async function stepPatch({ ticket, step, params, config, outcome, implemented, now }: FinishedStep): Promise<TicketPatch> {
  const messages = [...(JSON.parse(ticket.messages) as string[]), ...(outcome.messages ?? [])];
  const base: TicketPatch = {
    updated: now,
    messages: JSON.stringify(messages.slice(-100)),
    processing_msecs: ticket.processing_msecs + (outcome.kind === 'deferred' ? 0 : (outcome.msecs ?? 0)),
  };
  if (outcome.kind === 'deferred') {
    return { ...base, run_after: outcome.runAfter };
  }
  // The error step reports an earlier failure: it is the last step, and that failure's code and
  // message stay on the ticket (also for its own redeliveries, whose body must repeat them).
  const reporting = step === 'error';
  if (outcome.kind === 'succeeded') {
    const next = reporting ? null : stepAfter(step, params, implemented);
    return {
      ...base,
      status: `${step}.succeeded`,
      next,
      complete: next ? 0 : 1,
      completed: next ? null : now,
      run_after: now,
      ...(reporting ? {} : { error_code: null, error_message: null }),
      ...(outcome.pages !== undefined ? { processing_pages: ticket.processing_pages + outcome.pages } : {}),
      ...(outcome.outputName ? { output_name: outcome.outputName } : {}),
      ...(outcome.shipped ? { shipped: 1 } : {}),
    };
  }
  const rules = hasRedeliveryRules(step) ? await config.of(step).then((c) => c.redeliverOnError, () => undefined) : undefined;
  const delay = redeliveryDelay(rules, outcome.errorCode, ticket.redeliveries, now - ticket.created);
  const failed = { ...base, status: `${step}.failed`, ...(reporting ? {} : { error_code: outcome.errorCode, error_message: outcome.errorMessage }) };
  if (delay !== null) {
    // A receiver's Retry-After can lengthen the configured interval, never shorten it.
    const wait = Math.max(delay, outcome.retryAfterMs ?? 0);
    return { ...failed, next: step, run_after: now + wait, redeliveries: ticket.redeliveries + 1 };
  }
  const next = reporting ? null : errorStep(params, implemented);
  return { ...failed, next, complete: next ? 0 : 1, completed: next ? null : now, run_after: now };
}
