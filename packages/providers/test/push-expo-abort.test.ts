import { ProviderError } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { expoProvider } from '../src/push/expo.js';
import { expoFake } from './services/push-expo.js';
import { local, started } from './started.js';
import { pushMessage } from './push-message.js';

const tokens = (count: number) => Array.from({ length: count }, (_, i) => `ExponentPushToken[${i}]`);

/** The reason the engine aborts a send with when it stops waiting for it. */
const timedOut = () => new ProviderError('the provider did not answer within 10000 ms', { retryable: true, code: 'timeout' });

// Issue 40, item 7: a push to 420,000 tokens timed out, and its chunk loop went on for 21,000 requests.
describe('expo: a send the engine stopped waiting for stops its work', () => {
  it('an Expo that never answers: the request in flight is aborted and no further chunk is sent', async () => {
    const expo = await started(expoFake({ registered: tokens(250), answerAfter: 'never' }));
    // Its own request timeout is far off: only the abort can end this send in time.
    const provider = expoProvider({ ...local(expo.url), timeoutMs: 600_000 });
    const abort = new AbortController();
    const sending = provider.send(pushMessage(tokens(250)), {}, { signal: abort.signal });
    await expect.poll(() => expo.calls.length, { timeout: 10_000 }).toBe(1);
    abort.abort(timedOut());
    await expect(sending).rejects.toMatchObject({ name: 'ProviderError', options: { code: 'timeout', retryable: true } });
    // The server sees the client give up on the request it never answered.
    await expect.poll(() => expo.open(), { timeout: 10_000 }).toBe(0);
    expect(expo.calls).toHaveLength(1);
  }, 20_000);

  it('an Expo that answers slowly: the chunks stop at the abort; requests no longer arrive once the send has failed', async () => {
    const expo = await started(expoFake({ registered: tokens(1_000), answerAfter: 50 }));
    const provider = expoProvider(local(expo.url));
    const abort = new AbortController();
    const sending = provider.send(pushMessage(tokens(1_000)), {}, { signal: abort.signal });
    await expect.poll(() => expo.calls.length, { timeout: 10_000, interval: 5 }).toBeGreaterThanOrEqual(3);
    abort.abort(timedOut());
    await expect(sending).rejects.toMatchObject({ options: { code: 'timeout' } });
    await expect.poll(() => expo.open(), { timeout: 10_000 }).toBe(0);
    const sent = expo.calls.length;
    expect(sent).toBeLessThan(10);
    // One more request of our own takes as long as a chunk does: a loop still going would send its next one meanwhile.
    const probe = await fetch(`${expo.url}/--/api/v2/push/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
    expect(probe.status).toBe(200);
    expect(expo.calls).toHaveLength(sent + 1);
    expect(expo.calls.at(-1)!.body).toBe('[]');
  }, 20_000);

  it('a signal aborted before the send starts sends nothing; without a signal, every chunk goes as before', async () => {
    const expo = await started(expoFake({ registered: tokens(150) }));
    const provider = expoProvider(local(expo.url));
    await expect(provider.send(pushMessage(tokens(150)), {}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ options: { code: 'timeout' } });
    expect(expo.calls).toHaveLength(0);
    await expect(provider.send(pushMessage(tokens(150)), {})).resolves.toEqual({ id: expect.any(String) });
    expect(expo.calls.map((c) => c.json.length)).toEqual([100, 50]);
  });
});
