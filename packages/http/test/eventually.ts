/**
 * Waits (polling) until `read` gives a value that is not undefined, and returns it; `ms` only guards
 * against a hang (a busy machine may be slow), so it is generous.
 */
export async function eventually<T>(read: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
