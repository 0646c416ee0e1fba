import type pg from 'pg';
import { kill, startMember, type Member } from './cluster.js';
import { createOperatorWithCli } from './operator.js';

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 100 ms until it holds. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

/** Runs `fn` over `items`, `width` at a time. */
export async function eachLimited<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** Two API and two worker processes, replaced in place when one is killed and started again. */
export class Cluster {
  readonly apis: Member[] = [];
  readonly workers: Member[] = [];
  /** Every process ever started (to stop them all at the end). */
  readonly all: Member[] = [];
  private readonly down = new Set<number>();

  constructor(private readonly env: Record<string, string>) {}

  async start(apis: number, workers: number): Promise<void> {
    // As in the README's scale-out section: the first operator comes from the CLI.
    await createOperatorWithCli(this.env);
    const started = await Promise.all([...Array.from({ length: apis }, () => startMember('api', this.env)), ...Array.from({ length: workers }, () => startMember('worker', this.env))]);
    this.all.push(...started);
    this.apis.push(...started.slice(0, apis));
    this.workers.push(...started.slice(apis));
  }

  /** The URL of API `i`, or null while it is down. */
  apiUrl(i: number): string | null {
    return this.down.has(i) ? null : this.apis[i]!.url;
  }

  /** SIGKILLs API `i` and starts a new one in its place (on a new port). */
  async killApi(i: number): Promise<void> {
    this.down.add(i);
    await kill(this.apis[i]!);
    this.apis[i] = await this.restart('api');
    this.down.delete(i);
  }

  /**
   * Waits until worker `i` holds a lease, SIGKILLs it, starts a new one, and measures how long
   * after the kill the others took over each ticket it held (its attempt number moved on).
   */
  async killWorker(i: number, db: pg.Client): Promise<{ held: number; reclaimMs: number[] }> {
    const owner = `w-%-${this.workers[i]!.pid}-%`;
    const leased = async () => Number((await db.query('select count(*) as n from tickets where lease_owner like $1 and lease_until > $2', [owner, Date.now()])).rows[0].n) > 0;
    await until('the victim to hold a lease', leased, 120_000);
    const killedAt = Date.now();
    await kill(this.workers[i]!);
    const held = (await db.query('select id, attempt from tickets where lease_owner like $1 and complete = 0', [owner])).rows as { id: string; attempt: number }[];
    // Started again at once; meanwhile the survivor takes the tickets over as their leases run out.
    const restarted = this.restart('worker').then((m) => {
      this.workers[i] = m;
    });
    const reclaimed = new Map<string, number>();
    await until(
      'the dead worker’s tickets to be taken over',
      async () => {
        for (const h of held) {
          if (reclaimed.has(h.id)) continue;
          const row = (await db.query('select attempt from tickets where id = $1', [h.id])).rows[0] as { attempt: number };
          if (row.attempt > h.attempt) reclaimed.set(h.id, Date.now() - killedAt);
        }
        return reclaimed.size === held.length;
      },
      120_000,
    );
    await restarted;
    return { held: held.length, reclaimMs: [...reclaimed.values()] };
  }

  private async restart(role: 'api' | 'worker'): Promise<Member> {
    const m = await startMember(role, this.env);
    this.all.push(m);
    return m;
  }
}

/** What a client got for its submissions. */
export interface Submissions {
  /** Job index → ticket id, for every 202. */
  readonly acknowledged: Map<number, string>;
  /** Jobs without a 202 (the connection broke mid-request, or another status): never retried, they could be duplicates. */
  readonly unacknowledged: number[];
}

/**
 * Submits jobs 0..n-1 to the cluster's APIs in turn, `width` at a time. A refused connection
 * (nothing was sent) goes to the other API; `after` hears each 202 (to kill things mid-run).
 */
export async function submitJobs(cluster: Cluster, n: number, width: number, request: (i: number) => { path: string; init: RequestInit }, after: (s: Submissions) => void): Promise<Submissions> {
  const s: Submissions = { acknowledged: new Map(), unacknowledged: [] };
  const one = async (i: number): Promise<void> => {
    const { path, init } = request(i);
    for (let turn = 0; turn < cluster.apis.length; turn++) {
      const url = cluster.apiUrl((i + turn) % cluster.apis.length);
      if (!url) continue;
      let res: Response;
      try {
        res = await fetch(url + path, init);
      } catch (err) {
        if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') continue;
        s.unacknowledged.push(i);
        return;
      }
      if (res.status !== 202) {
        s.unacknowledged.push(i);
        await res.arrayBuffer();
        return;
      }
      s.acknowledged.set(i, ((await res.json()) as { tickets: { id: string }[] }).tickets[0]!.id);
      after(s);
      return;
    }
    s.unacknowledged.push(i);
  };
  await eachLimited(
    Array.from({ length: n }, (_, i) => i),
    width,
    one,
  );
  return s;
}
