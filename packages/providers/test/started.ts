import { afterEach } from 'vitest';

/**
 * What the provider tests share: fake services started for one test and closed after it, whatever
 * its outcome, and the options that point a provider at one of them on loopback.
 */
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Waits for a fake service to listen and closes it after the test. */
export async function started<T extends { close(): Promise<unknown> }>(fake: Promise<T>): Promise<T> {
  const server = await fake;
  closers.push(() => server.close());
  return server;
}

/** Provider options that reach a fake service at `url` (loopback is refused unless allowed). */
export const local = (url: string) => ({ baseUrl: url, network: { allow: ['127.0.0.1'] } });
