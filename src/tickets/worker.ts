import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { parseBlobUrl } from '../blobs/index.js';
import { stepConfigs } from '../repository/step-configs.js';
import type { CommittedEnd, Context, HandedTicket, LocalWorker, TicketLease } from '../context.js';
import { stepUsage } from '../stats/index.js';
import { tickets, type AttemptEnd, type Notifier, type TicketRow } from '../store/index.js';
import type { TicketParams } from './params.js';
import { EndWatchers } from './end-watchers.js';
import { inputInHand, RecentInputs } from './recent-inputs.js';
import type { Step, StepOutcome } from './step.js';
import { runStep } from './step-run.js';
import { stepPatch } from './step-patch.js';
import { reportStep } from './step-report.js';
import { handBack, releaseRunning, type StepInFlight } from './release-leases.js';
import { wakeAggregate } from './aggregate-wake.js';

/**
 * Claims due tickets and runs one step each. Each step's outcome and the next step are
 * committed together, under the attempt that claimed the ticket, so a worker that lost its
 * lease (paused, partitioned) can never overwrite a newer attempt.
 */
export class Worker implements LocalWorker {
  /** Lease owner name: host and process id tell an operator (or a test) whose lease a ticket holds. */
  readonly id = `w-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly active = new Set<Promise<void>>();
  /** Steps running now: the attempt that claimed each ticket, its lease renewal timer, and for a ticket intake handed over, its storing. */
  private readonly inFlight = new Map<string, StepInFlight>();
  /** Tickets handed back at shutdown: whatever their steps still return is dropped. */
  private readonly released = new Set<string>();
  private readonly implemented: ReadonlySet<string>;
  private running = false;
  /**
   * Hints that a ticket may have become due: a `new` event, a poll interval gone by, the end of
   * a step of a project with a parallel limit (its waiting tickets may go now). A claim that
   * comes back empty marks the hints it saw as tried, so finished steps do not cost an empty
   * claim (a write transaction) each while nothing new arrived.
   */
  private hints = 1;
  private triedHints = 0;
  /** Input blobs intake just stored, for the steps that will read them here; with S3 only. */
  private readonly recentInputs: RecentInputs | null;
  /** Synchronous requests of this process waiting for a ticket's end (see {@link watchEnd}). */
  private readonly ends = new EndWatchers();
  /** Slots promised to intake (see {@link reserve}) whose tickets are not running yet. */
  private reserved = 0;
  private wake: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly notifier: Notifier,
    private readonly steps: ReadonlyMap<string, Step>,
  ) {
    this.implemented = new Set(steps.keys());
    // Only where reading a blob back is a network round trip. On files the page cache still
    // holds the file just written: a read cost 0.2-0.3 ms of CPU, no change the bench could
    // see, while the bodies held added 30-38 MiB to the service process in the soak.
    const s3 = ctx.settings.blobUrl !== null && parseBlobUrl(ctx.settings.blobUrl).kind === 's3';
    this.recentInputs = s3 ? new RecentInputs(ctx.now) : null;
  }

  start(): void {
    this.running = true;
    this.unsubscribe = this.notifier.subscribe((event) => {
      if (event === 'new') {
        this.hints++;
        this.wake?.();
      }
    });
    this.loop = this.run();
    this.ctx.localWorker.current = this;
  }

  /**
   * A slot for a ticket intake is about to store, leased to this worker from the start: only
   * while a slot is free and the last claim found nothing due with no hint since, so the ticket
   * overtakes no other. Other processes' workers simply never see it due.
   */
  reserve(): TicketLease | null {
    if (!this.running || this.hints !== this.triedHints) return null;
    if (this.active.size + this.reserved >= this.ctx.settings.workerConcurrency) return null;
    this.reserved++;
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      this.reserved--;
      return true;
    };
    return {
      owner: this.id,
      until: this.ctx.now() + this.ctx.settings.leaseMs,
      start: (row, handed) => {
        if (!close()) return;
        if (this.running) this.launch(row, handed);
        else void handed.stored.then(() => handBack(this.ctx, this.notifier, row, this.id), () => {});
      },
      cancel: () => void close(),
    };
  }

  keepInput(key: string, body: Buffer): void {
    if (this.running) this.recentInputs?.offer(key, body);
  }

  watchEnd(id: string, ended: (end: CommittedEnd) => void): () => void {
    return this.ends.watch(id, ended);
  }

  /**
   * Stops claiming, gives running steps `graceMs` to finish, then releases the tickets of those
   * still running (no lease, due now, not a redelivery) so that any worker can take them up at
   * once instead of after their lease. Their steps go on until the step set is closed; what
   * they return then is dropped ({@link settle} waits for that).
   */
  async stop(graceMs = this.ctx.settings.shutdownGraceMs): Promise<void> {
    this.running = false;
    if (this.ctx.localWorker.current === this) this.ctx.localWorker.current = null;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    if (this.active.size === 0) return;
    this.ctx.logger.info({ running: this.active.size, graceMs }, 'waiting for running steps before stopping');
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(this.active).then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (finished) return;
    await releaseRunning(this.ctx, this.notifier, this.inFlight, this.released);
  }

  /** Waits up to `ms` for released steps to wind down (after their engines were closed). */
  async settle(ms = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.active), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private async run(): Promise<void> {
    const { settings, logger } = this.ctx;
    while (this.running) {
      const free = settings.workerConcurrency - this.active.size - this.reserved;
      const claimed: TicketRow[] = [];
      if (free > 0 && this.hints !== this.triedHints) {
        try {
          // One at a time: each claim must see the previous one's lease for per-project limits.
          for (let i = 0; i < free; i++) {
            const seen = this.hints;
            const one = await tickets.claimDue(this.ctx.db.kysely, this.ctx.db.dialect, this.id, this.ctx.now(), settings.leaseMs, 1);
            if (one.length === 0) {
              this.triedHints = seen;
              break;
            }
            claimed.push(...one);
          }
        } catch (err) {
          logger.error({ err }, 'claiming tickets failed');
        }
      }
      for (const t of claimed) this.launch(t);
      if (claimed.length === free && free > 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.hints++;
          resolve();
        }, settings.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Runs the step of a ticket this worker holds the lease of (or will, once intake has stored it). */
  private launch(t: TicketRow, handed?: HandedTicket): void {
    const p = this.process(t, handed).catch((err: unknown) => this.ctx.logger.error({ err, ticket: t.id }, 'step crashed'));
    this.active.add(p);
    void p.finally(() => {
      this.active.delete(p);
      if (t.max_parallel !== null) this.hints++;
      this.wake?.();
    });
  }

  /** A ticket a step's commit claimed for the slot it freed; released at once if this worker stopped meanwhile. */
  private takeOver(row: TicketRow): void {
    if (this.running) this.launch(row);
    else void handBack(this.ctx, this.notifier, row, this.id);
  }

  private async process(ticket: TicketRow, handed?: HandedTicket): Promise<void> {
    const { ctx } = this;
    const stepName = ticket.next!;
    const step = this.steps.get(stepName);
    const params = JSON.parse(ticket.params) as TicketParams;
    const config = stepConfigs(ctx, ticket.tenant, ticket.project, params.profiles);
    const ref = { id: ticket.id, attempt: ticket.attempt, owner: this.id };
    const renew = setInterval(() => {
      tickets.renewLease(ctx.db.kysely, ticket.id, ticket.attempt, this.id, ctx.now() + ctx.settings.leaseMs).catch((err: unknown) => ctx.logger.warn({ err }, 'lease renewal failed'));
    }, Math.max(250, Math.floor(ctx.settings.leaseMs / 3)));
    this.inFlight.set(ticket.id, { ref, renew, ...(handed ? { stored: handed.stored } : {}) });
    const claimedAt = ctx.now();
    const started = performance.now();
    ctx.logger.debug({ ticket: ticket.id, tenant: ticket.tenant, project: ticket.project, step: stepName, attempt: ticket.attempt }, 'step claimed');
    let outcome: StepOutcome;
    try {
      const input = () => ({ ctx, ticket, params, config, ...inputInHand(ticket, handed, this.recentInputs) });
      outcome = await runStep(ctx, ticket, step, stepName, input, () => this.released.has(ticket.id));
    } finally {
      clearInterval(renew);
      this.inFlight.delete(ticket.id);
    }
    // Stopped by the shutdown, not failed: the next worker runs the step again. Or intake could
    // not store the ticket it handed over: there is no row to complete, and its client has the error.
    if (this.released.has(ticket.id) || (handed && !(await handed.stored.then(() => true, () => false)))) {
      await Promise.all(outcome.artifacts.filter((a) => !a.data).map((a) => ctx.blobs.delete(a.blob_key))).catch(() => {});
      return;
    }
    const patch = await stepPatch({ ticket, step: stepName, params, config, outcome, implemented: this.implemented, now: ctx.now() });
    const end: AttemptEnd = outcome.kind === 'deferred' ? 'forget' : { outcome: outcome.kind, errorCode: outcome.kind === 'failed' ? outcome.errorCode : null, at: ctx.now() };
    // The slot this step frees takes the next due ticket in the same commit, unless the last
    // claim found nothing and no hint came since (then the claim would find nothing again).
    const seen = this.hints;
    const claim = this.running && seen !== this.triedHints ? { now: ctx.now(), until: ctx.now() + ctx.settings.leaseMs } : undefined;
    const { committed, claimed } = await tickets.completeStep(ctx.db.kysely, ctx.db.dialect, ref, patch, outcome.artifacts, stepUsage(ticket, stepName, outcome, patch), end, claim);
    if (claimed) this.takeOver(claimed);
    else if (claim && committed) this.triedHints = seen;
    if (!committed) {
      ctx.logger.warn({ ticket: ticket.id, attempt: ticket.attempt }, 'lease lost before the step finished; discarding its result');
      await Promise.all(outcome.artifacts.filter((a) => !a.data).map((a) => ctx.blobs.delete(a.blob_key)));
      return;
    }
    reportStep(ctx, ticket, stepName, outcome, patch, { claimedAt, ms: performance.now() - started });
    if (patch.complete === 1) this.ends.ended(ticket, patch, outcome);
    if (patch.complete === 1 && ticket.aggregate_id) await wakeAggregate(ctx, this.notifier, ticket, patch.status ?? ticket.status);
    // Only a synchronous request waits for a ticket's end; for the others a NOTIFY would be a
    // round trip to PostgreSQL, and a message to every listening process, that nobody reads.
    if (patch.complete === 1) await this.notifier.publish(`done:${ticket.id}`, params.awaited ? undefined : 'local').catch(() => {});
    else if (patch.next) await this.notifier.publish('new').catch(() => {});
  }
}
