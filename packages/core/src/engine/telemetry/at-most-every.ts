/**
 * `load` run at most once per `everyMs`, and never twice at once: a call while a load is in flight
 * shares that load, and a call within `everyMs` of the last load's end gets its result. So however
 * many callers come (scrapers, readers, concurrent collections), `load` costs at most one run per
 * `everyMs` plus its own duration.
 *
 * `load` should not reject (turn a failure into a value): a failure is then held as long as a
 * result, so a failing store is not asked again by every caller. A rejection is shared by the callers
 * of that load and the next call loads again.
 *
 * `now` is monotonic wall time in milliseconds, not the engine's clock: the window bounds the work
 * done per real second, whatever a test or a manual clock says the time is.
 */
export function atMostEvery<T>(everyMs: number, load: () => Promise<T>, now: () => number = () => performance.now()): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  let last: { readonly value: T; readonly at: number } | null = null;
  return () => {
    if (inFlight) return inFlight;
    if (last && now() - last.at < everyMs) return Promise.resolve(last.value);
    const loading = load()
      .then((value) => {
        last = { value, at: now() };
        return value;
      })
      .finally(() => {
        inFlight = null;
      });
    inFlight = loading;
    return loading;
  };
}
