import { AppError } from '../errors.js';

/**
 * Bounds how many ZIPs one process expands at once: inflating is CPU and memory a small
 * request can multiply, so beyond `slots` requests wait in line, and one that waited
 * `maxWaitMs` is answered 503 with Retry-After instead of piling up behind the others.
 */
export class ExpandGate {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly slots: number,
    readonly maxWaitMs: number,
  ) {}

  /** Runs `work` in a slot, waiting for one if all are taken. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.busy < this.slots) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(wake), 1);
        const seconds = Math.max(1, Math.ceil(this.maxWaitMs / 2000));
        reject(new AppError('unavailable', `too many ZIP uploads are being unpacked right now; try again in ${seconds} s`, { headers: { 'retry-after': String(seconds) } }));
      }, this.maxWaitMs);
      this.waiting.push(wake);
    });
  }

  private release(): void {
    // The slot passes straight to the next in line, so `busy` stays counted for it.
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }
}
