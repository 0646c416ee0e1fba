import type { CommittedEnd } from '../context.js';
import { tickets, type TicketPatch, type TicketRow } from '../store/index.js';
import type { StepOutcome } from './step.js';

/**
 * Synchronous requests of this process waiting for tickets its worker runs. When the worker
 * commits a ticket's last step, each watcher gets the row as committed and, when that step
 * wrote the main output, its bytes still in memory: the request answers without reading back
 * the ticket, its artifact row and the output's file.
 */
export class EndWatchers {
  private readonly watchers = new Map<string, Set<(end: CommittedEnd) => void>>();

  /** Hands `ended` the end of ticket `id` until the returned function is called. */
  watch(id: string, ended: (end: CommittedEnd) => void): () => void {
    const set = this.watchers.get(id) ?? new Set();
    this.watchers.set(id, set.add(ended));
    return () => {
      set.delete(ended);
      if (set.size === 0 && this.watchers.get(id) === set) this.watchers.delete(id);
    };
  }

  /** The worker committed `patch`, which completes `ticket`, with the outcome of its step. */
  ended(ticket: TicketRow, patch: TicketPatch, outcome: StepOutcome): void {
    const set = this.watchers.get(ticket.id);
    if (!set) return;
    const row = tickets.committedRow(ticket, patch);
    // Only an output this step stored: one kept by an earlier step, or not kept at all, is read from the store.
    const body = outcome.kind === 'succeeded' ? outcome.outputBytes : undefined;
    const artifact = body && outcome.artifacts.find((a) => a.name === row.output_name);
    const end: CommittedEnd = { ticket: row, output: body && artifact ? { artifact, body } : null };
    for (const watcher of set) watcher(end);
  }
}
