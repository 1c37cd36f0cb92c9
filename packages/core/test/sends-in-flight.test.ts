/**
 * An integration's `maxInFlight`: at most that many of its provider calls at once in one engine
 * process (DEFAULT_MAX_IN_FLIGHT when unset), whatever `deliveryConcurrency` allows, and one
 * integration's line never holds up another's. The provider's sends wait until the test lets them go.
 */
import { describe, expect, it } from 'vitest';
import { isTidingsError, type Provider, type TidingsOptions } from '../src/index.js';
import { DEFAULT_MAX_IN_FLIGHT } from '../src/schemas/index.js';
import { sendsInFlight } from '../src/engine/delivery/sends-in-flight.js';
import { testEngine } from './helpers.js';

/** An email provider whose sends wait to be let go; per integration (its `apiKey`), how many were in flight at most. */
function heldProvider() {
  const held: { key: string; go: () => void }[] = [];
  const inFlight = new Map<string, number>();
  const most = new Map<string, number>();
  const sent = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string, n: number) => counts.set(key, (counts.get(key) ?? 0) + n).get(key)!;
  const provider: Provider = {
    id: 'held',
    channel: 'email',
    async send(_message, credentials) {
      const key = credentials.apiKey ?? '';
      most.set(key, Math.max(most.get(key) ?? 0, add(inFlight, key, 1)));
      await new Promise<void>((go) => held.push({ key, go }));
      add(inFlight, key, -1);
      return { id: `held-${add(sent, key, 1)}` };
    },
  };
  /** Lets the first held send of `key` go. */
  const release = (key: string) => {
    const at = held.findIndex((h) => h.key === key);
    const [send] = held.splice(at, 1);
    send!.go();
  };
  const count = (counts: Map<string, number>, key: string) => counts.get(key) ?? 0;
  return {
    provider,
    release,
    held: (key: string) => held.filter((h) => h.key === key).length,
    inFlight: (key: string) => count(inFlight, key),
    most: (key: string) => count(most, key),
    sent: (key: string) => count(sent, key),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Waits, turn by turn of the event loop, until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await turn();
}

const mail = { name: 'mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email' as const, subject: 's', content: 'c' } }] };
const recipients = (n: number, prefix = 's') => Array.from({ length: n }, (_, i) => ({ subscriberId: `${prefix}${i}`, email: `${prefix}${i}@example.com` }));

/** An engine with the held provider, lanes to spare, and no provider timeout within the test's life. */
async function setup(options: Partial<TidingsOptions> = {}) {
  const held = heldProvider();
  const { tidings, clock } = testEngine({ providers: [held.provider], deliveryConcurrency: 1_000, providerTimeoutMs: 3_600_000, ...options });
  await tidings.workflows.upsert(mail);
  return { tidings, clock, held };
}

/** Lets `key`'s sends go one at a time, each once the next is in flight, until `total` were sent. */
async function drain(held: ReturnType<typeof heldProvider>, key: string, total: number): Promise<void> {
  while (held.sent(key) < total) {
    await until(() => held.held(key) > 0 || held.sent(key) === total);
    if (held.held(key) > 0) held.release(key);
  }
}

describe('sends in flight per integration (maxInFlight)', () => {
  it('30 sends through an integration with maxInFlight 5: never more than 5 at once, and all 30 sent', async () => {
    const { tidings, held } = await setup();
    await tidings.integrations.upsert({ identifier: 'mail', providerId: 'held', channel: 'email', credentials: { apiKey: 'mail' }, maxInFlight: 5 });
    const { transactionId } = await tidings.trigger({ name: 'mail', to: recipients(30) });
    const run = tidings.runDue();
    await until(() => held.inFlight('mail') >= 5);
    await drain(held, 'mail', 30);
    await run;
    expect(held.most('mail')).toBe(5);
    expect(held.sent('mail')).toBe(30);
    const messages = await tidings.messages.byTransaction(transactionId!);
    expect(messages.map((m) => m.status)).toEqual(Array.from({ length: 30 }, () => 'sent'));
  });

  it('one integration whose sends hang does not hold up another of the same provider: each has its own line', async () => {
    const { tidings, held } = await setup();
    await tidings.integrations.upsert({ identifier: 'slow', providerId: 'held', channel: 'email', credentials: { apiKey: 'slow' }, maxInFlight: 2 });
    await tidings.integrations.upsert({ identifier: 'fast', providerId: 'held', channel: 'email', credentials: { apiKey: 'fast' }, maxInFlight: 3 });
    const via = (identifier: string) => ({ email: { integrationIdentifier: identifier } });
    await tidings.trigger({ name: 'mail', to: recipients(6, 'slow'), overrides: via('slow') });
    await tidings.trigger({ name: 'mail', to: recipients(12, 'fast'), overrides: via('fast') });
    const run = tidings.runDue();
    await until(() => held.inFlight('slow') >= 2);
    // Every one of "fast"'s sends goes while "slow"'s first two hang and its other four wait in line.
    await drain(held, 'fast', 12);
    expect([held.sent('slow'), held.inFlight('slow')]).toEqual([0, 2]);
    await drain(held, 'slow', 6);
    await run;
    expect([held.most('slow'), held.most('fast')]).toEqual([2, 3]);
  });

  it(`with no maxInFlight an integration has at most DEFAULT_MAX_IN_FLIGHT (${DEFAULT_MAX_IN_FLIGHT}) sends in flight, below deliveryConcurrency`, async () => {
    expect(DEFAULT_MAX_IN_FLIGHT).toBe(150);
    const { tidings, held } = await setup({ deliveryConcurrency: 300 });
    await tidings.integrations.upsert({ identifier: 'mail', providerId: 'held', channel: 'email', credentials: { apiKey: 'mail' } });
    await tidings.trigger({ name: 'mail', to: recipients(200) });
    const run = tidings.runDue();
    await until(() => held.inFlight('mail') >= DEFAULT_MAX_IN_FLIGHT);
    await drain(held, 'mail', 200);
    await run;
    expect([held.most('mail'), held.sent('mail')]).toEqual([DEFAULT_MAX_IN_FLIGHT, 200]);
  });

  it('the rateLimit still holds: a send whose rate is spent waits for the window and gives its place in line back at once', async () => {
    const { tidings, clock, held } = await setup();
    await tidings.integrations.upsert({ identifier: 'mail', providerId: 'held', channel: 'email', credentials: { apiKey: 'mail' }, maxInFlight: 1, rateLimit: { messages: 2, seconds: 60 } });
    await tidings.trigger({ name: 'mail', to: recipients(5) });
    const run = tidings.runDue();
    await drain(held, 'mail', 2);
    await run;
    const waiting = (await tidings.pending()).jobs.filter((j) => j.subscriberId !== '');
    expect(waiting.map((j) => j.runAt)).toEqual(Array.from({ length: 3 }, () => new Date(clock.now().getTime() + 60_000).toISOString()));
    clock.advance(60_000);
    const again = tidings.runDue();
    await drain(held, 'mail', 4);
    await again;
    expect([held.most('mail'), held.sent('mail')]).toEqual([1, 4]);
  });

  it('a changed maxInFlight holds for the next send; the places of calls in flight are given back where they were taken', async () => {
    const line = sendsInFlight();
    const at = (maxInFlight: number) => ({ _environmentId: 'env', _id: 'i1', maxInFlight });
    const waiting: { give?: () => void } = {};
    const first = await line.take(at(1));
    void line.take(at(1)).then((give) => (waiting.give = give));
    await turn();
    expect(waiting.give).toBeUndefined();
    // Raised to 2: a new line, with room at once while the first call still holds its old place.
    const raised = await line.take(at(2));
    first();
    first(); // given back once only
    await until(() => waiting.give !== undefined);
    waiting.give!();
    raised();
    const two = [await line.take(at(2)), await line.take(at(2))];
    let third = false;
    void line.take(at(2)).then(() => (third = true));
    await turn();
    expect(third).toBe(false);
    two[0]!();
    await until(() => third);
  });

  it('maxInFlight is a whole number from 1 to 1000: anything else is refused naming it, and nothing changes', async () => {
    const { tidings } = testEngine();
    const stored = await tidings.integrations.upsert({ identifier: 'mail', providerId: 'held', channel: 'email', maxInFlight: 5 });
    for (const bad of [0, 1_001, 2.5, 'x', -1]) {
      const refusedCreate = await tidings.integrations.upsert({ identifier: 'other', providerId: 'held', channel: 'email', maxInFlight: bad as never }).catch((e: unknown) => e);
      const refusedUpdate = await tidings.integrations.update(stored._id, { maxInFlight: bad as never }).catch((e: unknown) => e);
      for (const refused of [refusedCreate, refusedUpdate]) {
        expect(isTidingsError(refused, 'validation_failed') && refused.issues.map((i) => i.path)).toEqual(['maxInFlight']);
      }
    }
    expect((await tidings.integrations.list()).map((i) => [i.identifier, i.maxInFlight])).toEqual([['mail', 5]]);
    expect((await tidings.integrations.update(stored._id, { maxInFlight: 1_000 })).maxInFlight).toBe(1_000);
    expect((await tidings.integrations.update(stored._id, { name: 'Mail' })).maxInFlight).toBe(1_000);
    expect(await tidings.integrations.update(stored._id, { maxInFlight: null })).not.toHaveProperty('maxInFlight');
  });
});
