import type { HandedTicket } from '../context.js';
import type { TicketRow } from '../store/index.js';

/** Most bytes of request bodies held at once: about 600 bench sheets (ZIPs of ~55 KB). */
const RECENT_INPUTS_MAX_BYTES = 32 * 1024 * 1024;
/** A body no step took within this long was claimed by another process, or never will be. */
const RECENT_INPUTS_TTL_MS = 60_000;

/**
 * Request bodies intake has just stored as their tickets' input blobs, held for the step of this
 * process that will read them, which then needs no GET from object storage.
 *
 * Each body is taken once, by the first step that asks for its key; a redelivery reads the blob.
 * A full holder admits nothing new rather than evicting: tickets are claimed oldest first, so the
 * bodies it already holds are the ones needed next. Bodies no step took (their tickets were
 * claimed by another process, or never stored) leave after {@link RECENT_INPUTS_TTL_MS}.
 */
export class RecentInputs {
  private readonly held = new Map<string, { body: Buffer; at: number }>();
  private bytes = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxBytes = RECENT_INPUTS_MAX_BYTES,
    private readonly ttlMs = RECENT_INPUTS_TTL_MS,
  ) {}

  /** Holds `body` as the input stored under `key`, if it fits. */
  offer(key: string, body: Buffer): void {
    this.expire();
    if (this.held.has(key) || body.length > this.maxBytes - this.bytes) return;
    this.held.set(key, { body, at: this.now() });
    this.bytes += body.length;
  }

  /** The body stored under `key`, handed over once; undefined when it is not held. */
  take(key: string): Buffer | undefined {
    this.expire();
    const entry = this.held.get(key);
    if (!entry) return undefined;
    this.held.delete(key);
    this.bytes -= entry.body.length;
    return entry.body;
  }

  /** Bytes held now. */
  get size(): number {
    return this.bytes;
  }

  /** Drops bodies held past the time limit; the map keeps offer order, so the oldest come first. */
  private expire(): void {
    const limit = this.now() - this.ttlMs;
    for (const [key, entry] of this.held) {
      if (entry.at > limit) break;
      this.held.delete(key);
      this.bytes -= entry.body.length;
    }
  }
}

/**
 * The input body this process holds for a ticket's step, as `StepInput.received`: the one intake
 * handed over with the ticket, else the one it kept (a fanout part's shared ZIP never is).
 */
export function inputInHand(ticket: Pick<TicketRow, 'input_key' | 'input_type'>, handed: HandedTicket | undefined, recent: RecentInputs | null): { received?: Buffer } {
  const body = handed?.input ?? (recent && ticket.input_key && ticket.input_type !== 'zip-part' ? recent.take(ticket.input_key) : undefined);
  return body ? { received: body } : {};
}
