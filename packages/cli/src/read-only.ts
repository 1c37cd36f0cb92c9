import { errorBody } from '@tidings/http';

type Fetch = (request: Request, ...rest: never[]) => Response | Promise<Response>;

/** What a read-only server answers: reads, and the preflight of a browser's reads. */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `tidings serve --read-only`: every request that could change something is refused with a 405 in
 * the API's error shape before it reaches a route, so nothing tries to write a file this process
 * only reads (SQLite would refuse the write, but only once a route had half done its work).
 */
export function readOnlyFetch<F extends Fetch>(fetch: F, now: () => Date): F {
  return ((request: Request, ...rest: never[]) => {
    if (READS.has(request.method)) return fetch(request, ...rest);
    const path = new URL(request.url).pathname;
    const message = `This server only reads its database (tidings serve --read-only), which another process writes: send ${request.method} ${path} to that process`;
    return Response.json(errorBody(405, message, path, now()), { status: 405, headers: { allow: 'GET, HEAD, OPTIONS' } });
  }) as F;
}
