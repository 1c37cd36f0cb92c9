import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { Provider } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import type { Storage } from '../../storage.js';
import { storageWith } from '../storage-with.js';
import type { SuiteContext } from '../storage-under-test.js';
import { scriptedCodeWorkflow } from '../scripted-code-workflow.js';
import type { CodeWorkflow } from '../../walk/code-workflow.js';

/** An order email whose body loops over 600 lines: an ordinary template, about ten milliseconds of liquid. */
const ORDER_BODY = '<table>{% for item in payload.items %}<tr><td>{{ item.name | upcase }}</td><td>{{ item.sku | downcase }}</td><td>{{ item.qty }} × {{ item.price | round: 2 }}</td><td>{{ item.qty | times: item.price | round: 2 }}</td></tr>{% endfor %}</table>';
const orderLines = Array.from({ length: 600 }, (_, i) => ({ name: `item ${i}`, sku: `SKU-${i}`, qty: (i % 5) + 1, price: i * 1.25 }));

/** An email provider that records every address it was asked to send to. */
function recordingMail(): Provider & { readonly sentTo: string[] } {
  const sentTo: string[] = [];
  return {
    id: 'mailer',
    channel: 'email',
    sentTo,
    async send(message) {
      sentTo.push(message.to.email!);
      return { id: `pm-${sentTo.length}` };
    },
  };
}

/**
 * A code workflow of two in-app steps that greet the subscriber by name; `ran` is told each run of
 * its first step's resolver (the subscriber's first and last name).
 */
function subscriberGreeting(id: string, ran: (firstName: string, lastName: string) => void | Promise<void>): CodeWorkflow {
  return {
    kind: 'tidings.code-workflow',
    id,
    discover: async () => [
      { stepId: 'hello', type: 'in_app' },
      { stepId: 'then', type: 'in_app' },
    ],
    preparePayload: async (payload) => ({ ok: true, payload }),
    async runNext({ subscriber, results }) {
      if (!results.has('hello')) {
        await ran(subscriber.firstName ?? '', String(subscriber.lastName ?? null));
        return { kind: 'step', stepId: 'hello', type: 'in_app', skipped: false, outputs: { body: `Hello ${subscriber.firstName ?? ''} ${subscriber.lastName ?? ''}` } };
      }
      if (!results.has('then')) return { kind: 'step', stepId: 'then', type: 'in_app', skipped: false, outputs: { body: `Then: ${subscriber.firstName ?? ''}` } };
      return { kind: 'end' };
    },
  };
}

/** The storage with a flag that is up while a transaction's function runs, to catch user code run inside one. */
function watchedTransactions(storage: Storage) {
  let open = 0;
  const watched = storageWith(storage, {
    transaction: (fn) =>
      storage.transaction(async (tx) => {
        open++;
        try {
          return await fn(tx);
        } finally {
          open--;
        }
      }),
  });
  return { storage: watched, inTransaction: () => open > 0 };
}

/**
 * Budgets and registries belong to one unit of work: a subscriber's walk, an event, the storage the
 * user passed. One trigger's heavy work never fails another's, and user code never runs inside a
 * write transaction.
 */
export function unitsOfWorkSuite({ get }: SuiteContext): void {
  describe('units of work', () => {
    it('units of work — 100 order emails with a 600-line loop and another trigger\'s welcome emails share a batch: every one is sent, no step fails', async () => {
      const mail = recordingMail();
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-render-units', providers: [mail] });
      await tidings.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await tidings.workflows.upsert({ name: 'Order', triggers: [{ identifier: 'order' }], steps: [{ template: { type: 'email', subject: 'Order {{ payload.id | upcase }}', content: ORDER_BODY } }] });
      await tidings.workflows.upsert({ name: 'Welcome', triggers: [{ identifier: 'welcome' }], steps: [{ template: { type: 'email', subject: 'Welcome', content: 'Hi {{ subscriber.firstName | default: "there" }}' } }] });
      const buyers = Array.from({ length: 90 }, (_, i) => ({ subscriberId: `buyer-${i}`, email: `buyer-${i}@example.com` }));
      const newcomers = Array.from({ length: 10 }, (_, i) => ({ subscriberId: `new-${i}`, email: `new-${i}@example.com`, firstName: `N${i}` }));
      await tidings.trigger({ name: 'order', to: buyers, payload: { id: 'o-1', items: orderLines }, transactionId: 'order-1' });
      await tidings.trigger({ name: 'welcome', to: newcomers, payload: {}, transactionId: 'welcome-1' });
      // A walk that spent a shared batch's budget (a starved CPU makes that likelier) runs later in a
      // batch of its own: run until nothing is due.
      while ((await tidings.runDue()) > 0);
      const messages = [...(await tidings.messages.byTransaction('order-1')), ...(await tidings.messages.byTransaction('welcome-1'))];
      expect(messages).toHaveLength(100);
      expect(messages.filter((m) => m.status !== 'sent').map((m) => `${m.subscriberId}: ${m.status}`)).toEqual([]);
      const decisions = [...(await tidings.explain('order-1')), ...(await tidings.explain('welcome-1'))].flatMap((r) => r.entries.map((e) => e.decision));
      expect(decisions).not.toContain('failed');
      // Each address once: a walk that went on later did not send its step twice.
      expect(mail.sentTo).toHaveLength(100);
      expect(new Set(mail.sentTo).size).toBe(100);
    });

    it('units of work — two engines on one storage, with code workflows, call the provider once per message', async () => {
      const storage = get();
      let releaseFirst: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstCalled: () => void = () => undefined;
      const firstCall = new Promise<void>((resolve) => (firstCalled = resolve));
      const sentTo: string[] = [];
      const slowMail: Provider = {
        id: 'mailer',
        channel: 'email',
        async send(message) {
          sentTo.push(message.to.email!);
          // The first send holds until the second engine has run; a second send of the same job would not.
          if (sentTo.length === 1) {
            firstCalled();
            await holding;
          }
          return { id: `pm-${sentTo.length}` };
        },
      };
      const code = scriptedCodeWorkflow('code-note', [{ stepId: 'note', type: 'in_app', outputs: () => ({ body: 'hi' }) }]);
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const options = { storage, clock, environmentId: 'env-two-engines', providers: [slowMail], workflows: [code] };
      const first = createTidings(options);
      const second = createTidings(options);
      await first.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await first.workflows.upsert({ name: 'Mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
      await first.trigger({ name: 'mail', to: { subscriberId: 'ada', email: 'ada@example.com' }, payload: {}, transactionId: 'mail-1' });
      const running = first.runDue();
      await firstCall;
      // The second engine starts while the first holds the job's lease in the middle of its send.
      await second.runDue();
      releaseFirst();
      await running;
      await second.runDue();
      expect(sentTo).toEqual(['ada@example.com']);
      expect((await first.messages.byTransaction('mail-1')).map((m) => m.status)).toEqual(['sent']);
    });

    it('units of work — a cap is exact across two engines whose batches send to one subscriber at once: 3 a day means 3', async () => {
      const base = get();
      let claimsWithJobs = 0;
      let openGate: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      // Each engine's claim is its own batch: both batches have read what they read before either sends.
      const storage = storageWith(base, {
        jobs: {
          ...base.jobs,
          claimDue: async (options) => {
            const jobs = await base.jobs.claimDue(options);
            if (jobs.some((job) => job.kind === 'walk') && ++claimsWithJobs === 2) openGate();
            return jobs;
          },
        },
      });
      const sentTo: string[] = [];
      const mail: Provider = {
        id: 'mailer',
        channel: 'email',
        async send(message) {
          await gate;
          sentTo.push(message.to.email!);
          return { id: `pm-${sentTo.length}` };
        },
      };
      const clock = manualClock('2026-05-04T08:00:00.000Z');
      const options = { storage, clock, environmentId: 'env-cap-two', providers: [mail], batchSize: 3, caps: [{ id: 'daily', channel: 'email' as const, limit: 3, per: { amount: 1, unit: 'days' as const } }] };
      const first = createTidings(options);
      const second = createTidings(options);
      await first.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true });
      await first.workflows.upsert({ name: 'Mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
      for (let n = 0; n < 6; n++) await first.trigger({ name: 'mail', to: { subscriberId: 'ada', email: 'ada@example.com' }, payload: {}, transactionId: `cap-${n}` });
      await Promise.all([first.runDue(), second.runDue()]);
      expect(sentTo).toHaveLength(3);
      const statuses = (await Promise.all(Array.from({ length: 6 }, (_, n) => first.messages.byTransaction(`cap-${n}`)))).flat().map((m) => m.status);
      expect(statuses.filter((s) => s === 'sent')).toHaveLength(3);
    });

    it('units of work — a code workflow\'s resolver never runs inside a write transaction, even for in-app steps alone', async () => {
      const watched = watchedTransactions(get());
      const seenInside: string[] = [];
      const code = scriptedCodeWorkflow('code-inbox', [
        {
          stepId: 'note',
          type: 'in_app',
          outputs: (payload) => {
            if (watched.inTransaction()) seenInside.push(String(payload['n']));
            return { body: `Note ${String(payload['n'])}` };
          },
        },
      ]);
      const tidings = createTidings({ storage: watched.storage, clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-outside', workflows: [code] });
      await tidings.triggerBulk([1, 2, 3].map((n) => ({ name: 'code-inbox', to: `reader-${n}`, payload: { n }, transactionId: `code-${n}` })));
      await tidings.runDue();
      expect(seenInside).toEqual([]);
      for (const n of [1, 2, 3]) expect((await tidings.messages.byTransaction(`code-${n}`)).map((m) => m.content)).toEqual([`Note ${n}`]);
    });

    it('units of work — a code workflow of in-app steps alone is stored by the trigger\'s own transaction: its runs are made before it, once each, with the subscriber the call writes', async () => {
      const watched = watchedTransactions(get());
      const runs: string[] = [];
      const greeting = subscriberGreeting('greet', (name) => {
        if (watched.inTransaction()) throw new Error('ran inside a write transaction');
        runs.push(name);
      });
      const tidings = createTidings({ storage: watched.storage, clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-inline', workflows: [greeting] });
      await tidings.subscribers.upsert({ subscriberId: 'bob', firstName: 'Bob', lastName: 'Stored' });
      const results = await tidings.triggerBulk([
        { name: 'greet', to: { subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace' }, transactionId: 'greet-1' },
        { name: 'greet', to: ['bob', 'cy'], transactionId: 'greet-2' },
      ]);
      expect(results.map((r) => r.status)).toEqual(['processed', 'processed']);
      // Stored by the call: no job, and both steps of each walk.
      expect(await tidings.storage.jobs.list('env-code-inline')).toEqual([]);
      expect((await tidings.messages.byTransaction('greet-1')).map((m) => m.content).sort()).toEqual(['Hello Ada Lovelace', 'Then: Ada']);
      expect((await tidings.messages.byTransaction('greet-2')).map((m) => `${m.subscriberId}: ${m.content}`).sort()).toEqual(['bob: Hello Bob Stored', 'bob: Then: Bob', 'cy: Hello  ', 'cy: Then: ']);
      expect(await tidings.runDue()).toBe(0);
      expect(runs.sort()).toEqual(['', 'Ada', 'Bob']);
      expect((await tidings.explain('greet-1', 'ada')).map((r) => r.entries.map((e) => e.decision))).toEqual([['delivered', 'delivered']]);
    });

    it('units of work — a code workflow\'s resolver slower than the trigger\'s budget for runs: the call goes on without it, and its walk goes to a job', async () => {
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      let gateOpen = false;
      const greeting = subscriberGreeting('greet', async (name) => {
        // Bob's resolver waits for a service that answers only once the trigger has returned.
        if (name === 'Bob' && !gateOpen) await gate;
      });
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-slow', workflows: [greeting] });
      await tidings.trigger({ name: 'greet', to: [{ subscriberId: 'ada', firstName: 'Ada' }, { subscriberId: 'bob', firstName: 'Bob' }], transactionId: 'slow-1' });
      expect((await tidings.messages.byTransaction('slow-1')).map((m) => `${m.subscriberId}: ${m.content}`).sort()).toEqual(['ada: Hello Ada ', 'ada: Then: Ada']);
      gateOpen = true;
      open();
      expect(await tidings.runDue()).toBe(1);
      expect((await tidings.messages.byTransaction('slow-1')).map((m) => `${m.subscriberId}: ${m.content}`).sort()).toEqual(['ada: Hello Ada ', 'ada: Then: Ada', 'bob: Hello Bob ', 'bob: Then: Bob']);
    });

    it('units of work — a code workflow whose subscriber changed while its runs were made goes to a job, which runs them afresh', async () => {
      let changed = false;
      const runs: string[] = [];
      let tidings: ReturnType<typeof createTidings> | undefined;
      const greeting = subscriberGreeting('greet', async (name, lastName) => {
        runs.push(`${name} ${lastName}`);
        if (changed) return;
        changed = true;
        // User code that writes the subscriber the trigger names (its own write, outside the trigger's transaction).
        await tidings!.subscribers.upsert({ subscriberId: 'ada', lastName: 'Byron' });
      });
      tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-changed', workflows: [greeting] });
      await tidings.trigger({ name: 'greet', to: { subscriberId: 'ada', firstName: 'Ada' }, transactionId: 'changed-1' });
      expect(await tidings.messages.byTransaction('changed-1')).toEqual([]);
      expect(await tidings.runDue()).toBe(1);
      expect((await tidings.messages.byTransaction('changed-1')).map((m) => m.content).sort()).toEqual(['Hello Ada Byron', 'Then: Ada']);
      expect(runs[0]).toBe('Ada null');
      expect(runs.slice(-1)).toEqual(['Ada Byron']);
    });

    it("units of work — a code workflow's runs made before the transaction get the walk's locale (the given one, else the default; canonical with catalogs) and their own copy of the payload: the walks are still stored by the trigger", async () => {
      const runs: string[] = [];
      const note: CodeWorkflow = {
        kind: 'tidings.code-workflow',
        id: 'locale-note',
        discover: async () => [{ stepId: 'note', type: 'in_app' }],
        preparePayload: async (payload) => ({ ok: true, payload }),
        async runNext({ payload, subscriber, locale, results }) {
          if (results.has('note')) return { kind: 'end' };
          // Code that changes what it is given.
          const items = payload['items'] as string[];
          items.push(subscriber.subscriberId);
          runs.push(`${subscriber.subscriberId} ${locale}`);
          return { kind: 'step', stepId: 'note', type: 'in_app', skipped: false, outputs: { body: `${locale}: ${items.join(',')}` } };
        },
      };
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-locale', defaultLocale: 'de', workflows: [note] });
      await tidings.translations.upsert({ locale: 'de', entries: { hello: 'Hallo' } });
      await tidings.trigger({ name: 'locale-note', to: [{ subscriberId: 'ana', locale: 'pt_BR' }, { subscriberId: 'udo' }], payload: { items: ['first'] }, transactionId: 'locale-1' });
      expect(await tidings.storage.jobs.list('env-code-locale')).toEqual([]);
      const messages = await tidings.messages.byTransaction('locale-1');
      expect(messages.map((m) => `${m.subscriberId}: ${m.content}`).sort()).toEqual(['ana: pt-BR: first,ana', 'udo: de: first,udo']);
      // What the function changed stayed in its run: the event is stored as it was triggered.
      expect(messages.map((m) => m.payload)).toEqual([{ items: ['first'] }, { items: ['first'] }]);
      expect((await tidings.storage.notifications.getByTransactionId('env-code-locale', 'locale-1'))?.payload).toEqual({ items: ['first'] });
      expect(await tidings.runDue()).toBe(0);
      expect(runs.sort()).toEqual(['ana pt-BR', 'udo de']);

      // Without catalogs: the locale as given, else the environment's default.
      runs.length = 0;
      const plain = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-plain-locale', defaultLocale: 'fr', workflows: [note] });
      await plain.trigger({ name: 'locale-note', to: [{ subscriberId: 'ana', locale: 'pt_BR' }, { subscriberId: 'udo' }], payload: { items: ['first'] }, transactionId: 'locale-2' });
      expect(await plain.storage.jobs.list('env-code-plain-locale')).toEqual([]);
      expect((await plain.messages.byTransaction('locale-2')).map((m) => `${m.subscriberId}: ${m.content}`).sort()).toEqual(['ana: pt_BR: first,ana', 'udo: fr: first,udo']);
      expect(runs.sort()).toEqual(['ana pt_BR', 'udo fr']);
    });

    it('units of work — a run the trigger stopped waiting for (its budget spent) makes no further step: its job makes them', async () => {
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      let gateOpen = false;
      const thenRuns: string[] = [];
      const greeting = subscriberGreeting('greet', async (name) => {
        if (name === 'Bob' && !gateOpen) await gate;
      });
      const counted: CodeWorkflow = {
        ...greeting,
        async runNext(input) {
          if (input.results.has('hello') && !input.results.has('then')) thenRuns.push(String(input.subscriber.firstName));
          return greeting.runNext(input);
        },
      };
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-abandoned', workflows: [counted] });
      await tidings.trigger({ name: 'greet', to: { subscriberId: 'bob', firstName: 'Bob' }, transactionId: 'abandoned-1' });
      expect(await tidings.messages.byTransaction('abandoned-1')).toEqual([]);
      gateOpen = true;
      open();
      // The abandoned run resumes on promises alone: once the loop reaches its next turn, it has ended.
      await new Promise((resolve) => setImmediate(resolve));
      expect(thenRuns).toEqual([]);
      expect(await tidings.runDue()).toBe(1);
      expect((await tidings.messages.byTransaction('abandoned-1')).map((m) => m.content).sort()).toEqual(['Hello Bob ', 'Then: Bob']);
      expect(thenRuns).toEqual(['Bob']);
    });

    it('units of work — a code workflow whose walks the transaction sends to jobs is not run before it: under an in-app cap, or past the call\'s inlineLimit', async () => {
      const runs: string[] = [];
      const greeting = subscriberGreeting('greet', (name) => {
        runs.push(name);
      });
      const capped = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-capped', workflows: [greeting], caps: [{ channel: 'in_app', limit: 5, per: { amount: 1, unit: 'days' } }] });
      await capped.trigger({ name: 'greet', to: { subscriberId: 'ada', firstName: 'Ada' }, transactionId: 'capped-1' });
      expect(runs).toEqual([]);
      expect(await capped.runDue()).toBe(1);
      expect(runs).toEqual(['Ada']);
      expect((await capped.messages.byTransaction('capped-1')).map((m) => m.content).sort()).toEqual(['Hello Ada ', 'Then: Ada']);

      runs.length = 0;
      const full = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'env-code-full', workflows: [greeting], inlineLimit: 2 });
      await full.workflows.upsert({ name: 'Stored note', triggers: [{ identifier: 'stored-note' }], steps: [{ template: { type: 'in_app', content: 'Stored {{ subscriber.subscriberId }}' } }] });
      // The stored workflow's two walks fill the call's room: the code workflow's walk after them is a job.
      await full.triggerBulk([
        { name: 'stored-note', to: ['s-1', 's-2'], transactionId: 'full-1' },
        { name: 'greet', to: { subscriberId: 'cy', firstName: 'Cy' }, transactionId: 'full-2' },
      ]);
      expect((await full.messages.byTransaction('full-1')).map((m) => m.content).sort()).toEqual(['Stored s-1', 'Stored s-2']);
      expect(runs).toEqual([]);
      expect(await full.runDue()).toBe(1);
      expect(runs).toEqual(['Cy']);
    });
  });
}
