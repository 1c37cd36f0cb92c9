/** Errors closer together than this belong to one burst. */
const QUIET_MS = 5_000;
/** A burst that goes on longer than this is summed up and a new one begins, so an outage stays visible. */
const LONGEST_MS = 60_000;

/**
 * A reporter that writes one line per burst of failures instead of one per failure: the first error
 * of a burst is logged with its message, the rest are counted, and the count is logged once the
 * errors have been quiet for QUIET_MS. A database outage under thousands of live frames is then a
 * handful of lines, not a stack trace each.
 */
export function oncePerBurst(label: string, log: (line: string) => void = (line) => console.error(line)): (error: unknown) => void {
  let more = 0;
  let timer: NodeJS.Timeout | null = null;
  let started = 0;
  const endBurst = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (more > 0) log(`${label} ${more} more failure${more === 1 ? '' : 's'} of the same burst`);
    more = 0;
  };
  return (error) => {
    if (timer && Date.now() - started > LONGEST_MS) endBurst();
    if (timer) {
      more += 1;
      clearTimeout(timer);
    } else {
      started = Date.now();
      log(`${label} ${error instanceof Error ? error.message : String(error)}`);
    }
    timer = setTimeout(endBurst, QUIET_MS);
    timer.unref();
  };
}
