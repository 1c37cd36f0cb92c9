/// <reference lib="dom" />
import { useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly value: T | undefined;
  readonly error: string | undefined;
  readonly reload: () => void;
}

/**
 * Loads on mount and whenever `deps` change; loads again after `pollMs(value)` milliseconds while it
 * answers a number (a view with work still under way watches it finish).
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], pollMs: (value: T) => number | null = () => null): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    load().then(
      (value) => {
        if (!live) return;
        setState({ value });
        const ms = pollMs(value);
        if (ms !== null) timer = setTimeout(() => setTick((t) => t + 1), ms);
      },
      (error: unknown) => {
        if (live) setState((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }));
      },
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { value: state.value, error: state.error, reload: () => setTick((t) => t + 1) };
}
