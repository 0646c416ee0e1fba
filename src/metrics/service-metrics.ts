import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Queue depth by state and next step, and the age of the oldest due ticket: read from the store at scrape time. */
export interface QueueSnapshot {
  depth: { state: 'due' | 'delayed' | 'running'; next: string; count: number }[];
  /** Seconds the oldest due, unclaimed ticket has waited; 0 when none waits. */
  oldestDueAgeSeconds: number;
}

/** Slots of one engine's process pool, and its processes replaced since it started, by reason. */
export interface SlotSnapshot {
  busy: number;
  idle: number;
  queued: number;
  /** By reason, as the pool counts them (timeout, memory, crash, recycled). */
  replaced: Record<string, number>;
}

/**
 * The service's own Prometheus series, one registry per Context (several servers in one test
 * process do not collide). Names are part of the operations interface: dashboards and alerts
 * rely on them (docs/configuration.md, docs/grafana-dashboard.json); never rename one.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private queue: (() => Promise<QueueSnapshot>) | null = null;
  private pending: { at: number; snapshot: Promise<QueueSnapshot | null> } | null = null;
  private slots: (() => Record<string, SlotSnapshot>) | null = null;

  private readonly stepDuration = new Histogram({
    name: 'pressroom_step_duration_seconds',
    help: 'Duration of ticket steps run by this process, by step and render target',
    labelNames: ['step', 'target'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly stepOutcomes = new Counter({
    name: 'pressroom_step_outcomes_total',
    help: 'Ticket steps run by this process, by outcome (succeeded, failed, redelivered) and errorCode (empty on success)',
    labelNames: ['step', 'outcome', 'error_code'],
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'pressroom_webhook_attempts_total',
    help: 'Webhook requests (one per URL and try) by step and outcome (delivered, failed)',
    labelNames: ['step', 'outcome'],
    registers: [this.registry],
  });
  private readonly blobErrors = new Counter({
    name: 'pressroom_blob_errors_total',
    help: 'Blob store operations that failed for a reason other than a missing key, by operation',
    labelNames: ['op'],
    registers: [this.registry],
  });

  constructor() {
    // The collect callbacks run on every scrape; a scrape that cannot ask the store shows no queue series.
    const depth: Gauge<'state' | 'next'> = new Gauge({
      name: 'pressroom_tickets',
      help: 'Open tickets of every project by state (due: waiting for a worker, delayed: waiting for a redelivery, running: leased) and next step',
      labelNames: ['state', 'next'],
      registers: [this.registry],
      collect: async () => {
        depth.reset();
        const snapshot = await this.queueSnapshot();
        for (const row of snapshot?.depth ?? []) depth.set({ state: row.state, next: row.next }, row.count);
      },
    });
    const oldest: Gauge = new Gauge({
      name: 'pressroom_oldest_due_ticket_age_seconds',
      help: 'How long the oldest due, unclaimed ticket has waited (0 when none waits)',
      registers: [this.registry],
      collect: async () => {
        const snapshot = await this.queueSnapshot();
        if (snapshot) oldest.set(snapshot.oldestDueAgeSeconds);
      },
    });
    const slots: Gauge<'engine' | 'state'> = new Gauge({
      name: 'pressroom_engine_slots',
      help: 'Process-pool slots of the engines in this process (typst, mupdf, xslt) by state: busy, idle, queued (jobs waiting for a slot)',
      labelNames: ['engine', 'state'],
      registers: [this.registry],
      collect: () => {
        slots.reset();
        for (const [engine, s] of Object.entries(this.slots?.() ?? {})) {
          slots.set({ engine, state: 'busy' }, s.busy);
          slots.set({ engine, state: 'idle' }, s.idle);
          slots.set({ engine, state: 'queued' }, s.queued);
        }
      },
    });
    const replaced: Counter<'engine' | 'reason'> = new Counter({
      name: 'pressroom_engine_processes_replaced_total',
      help: 'Engine processes (typst, mupdf, xslt) replaced in this process, by reason: timeout, memory (past the ceiling), crash, recycled (grown, or its memory floor rose)',
      labelNames: ['engine', 'reason'],
      registers: [this.registry],
      collect: () => {
        // The pools count; a scrape reads their totals.
        replaced.reset();
        for (const [engine, s] of Object.entries(this.slots?.() ?? {})) {
          for (const [reason, count] of Object.entries(s.replaced)) replaced.inc({ engine, reason }, count);
        }
      },
    });
  }

  /** One store query serves both queue series of a scrape. */
  private queueSnapshot(): Promise<QueueSnapshot | null> {
    const now = Date.now();
    if (!this.pending || now - this.pending.at > 1000) this.pending = { at: now, snapshot: this.queue ? this.queue() : Promise.resolve(null) };
    return this.pending.snapshot;
  }

  /** Where the queue series come from (the store); set by every process that serves /metrics. */
  observeQueue(source: () => Promise<QueueSnapshot>): void {
    this.queue = source;
  }

  /** Where the engine slot series come from (the worker's engines). */
  observeEngines(source: () => Record<string, SlotSnapshot>): void {
    this.slots = source;
  }

  stepFinished(step: string, target: string, outcome: 'succeeded' | 'failed' | 'redelivered', errorCode: string | null, seconds: number): void {
    this.stepDuration.observe({ step, target }, seconds);
    this.stepOutcomes.inc({ step, outcome, error_code: errorCode ?? '' });
  }

  webhookAttempt(step: string, outcome: 'delivered' | 'failed'): void {
    this.webhookAttempts.inc({ step, outcome });
  }

  blobError(op: string): void {
    this.blobErrors.inc({ op });
  }
}
