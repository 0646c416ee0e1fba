import { AppError } from '../errors.js';
import type { BlobStore } from './blob-store.js';

/**
 * Whether the blob store can be used, for /readyz and for workers waiting to start: checks at
 * most once per `maxAgeMs` (probes may come often, each check is a request to S3) and never
 * runs two checks at once.
 */
export class BlobProbe {
  private last: { at: number; problem: string | null } | null = null;
  private running: Promise<string | null> | null = null;

  constructor(
    private readonly store: BlobStore,
    private readonly maxAgeMs = 2000,
  ) {}

  /** null when usable, else one readable sentence on why not (no credentials in it). */
  problem(): Promise<string | null> {
    if (this.last && Date.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.problem);
    this.running ??= this.store
      .check()
      .then(
        () => null,
        (err: unknown) => (err instanceof AppError ? err.publicMessage : `blob store unavailable: ${(err as Error).message}`),
      )
      .then((problem) => {
        this.last = { at: Date.now(), problem };
        this.running = null;
        return problem;
      });
    return this.running;
  }

  /**
   * Calls `usable` once the store passes a check, checking every `everyMs` until then;
   * `unusable` hears each failed check. Returns a function that stops the checking.
   */
  whenUsable(everyMs: number, usable: () => void, unusable: (problem: string) => void): () => void {
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    const attempt = async (): Promise<void> => {
      const problem = await this.problem();
      if (stopped) return;
      if (problem === null) return usable();
      unusable(problem);
      timer = setTimeout(() => void attempt(), everyMs);
    };
    void attempt();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }
}
