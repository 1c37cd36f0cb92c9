import { AsyncLocalStorage } from 'node:async_hooks';

/** Who the calls running now are made by, for the audit log and revisions. */
const actors = new AsyncLocalStorage<string>();

/** Who a library call with no one else named is made by. */
export const CODE_ACTOR = 'code';

/**
 * Runs `fn` (and everything it awaits) as `who`: the HTTP adapter runs each request as its API key
 * (`key:<name>`, or `api` for a configured key), the CLI as `cli`. Changes made inside are recorded
 * in the audit log, and revisions, under that name.
 */
export function actingAs<T>(who: string, fn: () => T): T {
  return actors.run(who, fn);
}

/** Who the running call is made by: `code` outside `actingAs`. */
export function currentActor(): string {
  return actors.getStore() ?? CODE_ACTOR;
}
