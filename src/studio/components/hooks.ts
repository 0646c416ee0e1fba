import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../api/errors';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  /** The failure itself, for views that tell a 404 from other errors. */
  failure: unknown;
  reload(): void;
}

/**
 * Loads with `load` when `key` changes and again every `everyMs` (polling for live views) while
 * the tab is visible; a poll never overlaps the previous one, and a stale answer is dropped.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: string, everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ key: string; data: T | undefined; error: string | null; failure: unknown }>({ key, data: undefined, error: null, failure: null });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const data = await loadRef.current(controller.signal);
        if (!controller.signal.aborted) setState({ key, data, error: null, failure: null });
      } catch (err) {
        if (!controller.signal.aborted) setState((s) => ({ key, data: s.key === key ? s.data : undefined, error: describeError(err), failure: err }));
      }
      if (everyMs && !controller.signal.aborted) timer = setTimeout(() => void schedule(), everyMs);
    };
    const schedule = async () => {
      if (document.visibilityState === 'hidden') {
        timer = setTimeout(() => void schedule(), everyMs);
        return;
      }
      await run();
    };
    void run();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [key, tick, everyMs]);

  const current = state.key === key ? state : { data: undefined, error: null, failure: null };
  return { ...current, reload: () => setTick((t) => t + 1) };
}

/** A value that follows `value` after it has been still for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [out, setOut] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setOut(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return out;
}
