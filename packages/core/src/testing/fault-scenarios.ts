import type { Tidings } from '../engine/create-tidings.js';
import { isTidingsError } from '../errors.js';
import type { CapInput, WorkflowInput } from '../schemas/index.js';
import type { CodeWorkflow } from '../walk/code-workflow.js';
import { scriptedCodeWorkflow } from './scripted-code-workflow.js';
import type { Storage } from '../storage.js';
import { WAIT_SCENARIOS } from './wait-scenarios.js';

/**
 * One engine operation to prove under faults: `setup` runs fault-free, then `steps` run with a fault
 * armed. A `call` that throws is retried as a client would (same transactionId, same request);
 * `advance` moves the clock; after each step the job runner is driven until nothing is due.
 */
export interface FaultScenario {
  readonly name: string;
  /** Subscribers and transactions whose records the final-state comparison reads. */
  readonly subscribers: readonly string[];
  readonly transactions: readonly string[];
  readonly tenants?: readonly string[];
  /** Engine options for this scenario. */
  readonly inlineInApp?: boolean;
  readonly inlineLimit?: number;
  readonly fanoutChunk?: number;
  /** Caps the engine is made with. */
  readonly caps?: readonly CapInput[];
  /** Code workflows the engine runs (made anew for each run). */
  readonly workflows?: () => readonly CodeWorkflow[];
  setup(tidings: Tidings): Promise<void>;
  readonly steps: readonly ScenarioStep[];
  /** More of the stored state to compare, read back through the port (e.g. `explain`'s records). */
  readonly state?: (storage: Storage, env: string) => Promise<unknown>;
}

export type ScenarioStep = { readonly call: (tidings: Tidings) => Promise<unknown> } | { readonly advance: number };

const MINUTE = 60_000;

const inApp = (content: string) => ({ template: { type: 'in_app' as const, content } });
const workflow = (identifier: string, steps: WorkflowInput['steps']): WorkflowInput => ({ name: identifier, triggers: [{ identifier }], steps });
type RegularDigest = Extract<NonNullable<NonNullable<WorkflowInput['steps']>[number]['metadata']>, { type: 'regular' | 'backoff' }>;
const digest = (metadata: Partial<RegularDigest>) => ({ template: { type: 'digest' as const }, metadata: { type: 'regular' as const, amount: 5, unit: 'minutes' as const, ...metadata } });
const call = (fn: (tidings: Tidings) => Promise<unknown>): ScenarioStep => ({ call: fn });
const advance = (ms: number): ScenarioStep => ({ advance: ms });

async function withChannels(tidings: Tidings): Promise<void> {
  await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'recorder', channel: 'email', primary: true });
  await tidings.integrations.upsert({ name: 'Chat', identifier: 'chat', providerId: 'recorder', channel: 'chat', primary: true, credentials: { webhookUrl: 'https://hooks.example/t' } });
}

/** The message of a trigger, found the same way on every retry (archived and snoozed ones too). */
async function messageOf(tidings: Tidings, transactionId: string): Promise<string> {
  const [message] = await tidings.messages.byTransaction(transactionId);
  if (!message) throw new Error(`scenario: ${transactionId} has no message`);
  return message._id;
}

const seededInbox = async (tidings: Tidings) => {
  await tidings.workflows.upsert(workflow('note', [inApp('note {{ payload.n }}')]));
  await tidings.triggerBulk([1, 2, 3].map((n) => ({ name: 'note', to: 'ada', payload: { n }, transactionId: `seed-${n}` })));
  await tidings.runDue();
};

/** Every operation the reliability promise covers, each as a scenario of the fault suite. */
export const FAULT_SCENARIOS: readonly FaultScenario[] = [
  {
    name: 'single trigger with an inline subscriber, an actor and a tenant',
    subscribers: ['ada', 'max'],
    transactions: ['t1'],
    tenants: ['acme'],
    setup: (t) => t.workflows.upsert(workflow('hello', [inApp('Hi {{ subscriber.firstName }} from {{ tenant.name }}')])).then(() => undefined),
    steps: [call((t) => t.trigger({ name: 'hello', to: { subscriberId: 'ada', firstName: 'Ada' }, actor: { subscriberId: 'max', firstName: 'Max' }, tenant: { identifier: 'acme', name: 'Acme' }, transactionId: 't1' }))],
  },
  {
    name: 'bulk trigger: topics, tenants, a duplicate transactionId and an event without recipients',
    subscribers: ['a', 'b', 'c', 'new'],
    transactions: ['b1', 'b2', 'b3', 'b4'],
    tenants: ['t-ok', 't-refused'],
    async setup(t) {
      await t.workflows.upsert(workflow('hello', [inApp('Hi {{ payload.n }}')]));
      for (const id of ['a', 'b', 'c']) await t.subscribers.upsert({ subscriberId: id });
      await t.topics.addSubscribers('team', ['a', 'b', 'c']);
    },
    steps: [
      call((t) =>
        t.triggerBulk([
          { name: 'hello', to: [{ type: 'Topic', topicKey: 'team' }, { subscriberId: 'new', lastName: 'New' }], actor: 'c', payload: { n: 1 }, transactionId: 'b1', tenant: { identifier: 't-ok', name: 'OK' } },
          { name: 'hello', to: 'a', payload: { n: 2 }, transactionId: 'b1', tenant: { identifier: 't-refused', name: 'Refused' } },
          { name: 'hello', to: [{ type: 'Topic', topicKey: 'nobody' }], transactionId: 'b3', tenant: { identifier: 't-refused' } },
          { name: 'hello', to: ['b', 'c'], payload: { n: 4 }, transactionId: 'b4' },
        ]),
      ),
    ],
  },
  {
    name: 'in-app walk stored inline at trigger time',
    subscribers: ['ada', 'bob'],
    transactions: ['i1'],
    inlineInApp: true,
    setup: (t) => t.workflows.upsert(workflow('hello', [inApp('one'), inApp('two')])).then(() => undefined),
    steps: [call((t) => t.trigger({ name: 'hello', to: ['ada', 'bob'], transactionId: 'i1' }))],
  },
  {
    name: 'topic fan-out in chunks: in-app walks stored in each chunk’s commit, walks that wait queued as jobs',
    subscribers: ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'],
    transactions: ['f1', 'f2'],
    // Past the inline limit, 7 members in fan-out jobs of 3.
    inlineInApp: true,
    inlineLimit: 2,
    fanoutChunk: 3,
    async setup(t) {
      await t.workflows.upsert(workflow('news', [inApp('news for {{ subscriber.subscriberId }}')]));
      await t.workflows.upsert(workflow('later', [inApp('now'), { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, inApp('later')]));
      const members = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'];
      for (const id of members) await t.subscribers.upsert({ subscriberId: id });
      await t.topics.addSubscribers('all', members);
    },
    steps: [
      call((t) => t.trigger({ name: 'news', to: { type: 'Topic', topicKey: 'all' }, transactionId: 'f1' })),
      call((t) => t.trigger({ name: 'later', to: [{ type: 'Topic', topicKey: 'all' }], transactionId: 'f2' })),
      advance(MINUTE),
    ],
  },
  {
    name: 'job batch: in-app steps, a regular delay, and email and chat through a provider',
    subscribers: ['ada', 'bob'],
    transactions: ['p1', 'p2'],
    async setup(t) {
      await withChannels(t);
      await t.workflows.upsert(
        workflow('multi', [
          inApp('first'),
          { template: { type: 'email', subject: 'Hi {{ subscriber.firstName }}', content: 'Mail {{ payload.n }}' } },
          { template: { type: 'delay' }, metadata: { type: 'regular', amount: 2, unit: 'minutes' } },
          { template: { type: 'chat', content: 'Chat {{ payload.n }}' } },
          inApp('last'),
        ]),
      );
      await t.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
      await t.subscribers.upsert({ subscriberId: 'bob', firstName: 'Bob', email: 'bob@example.com' });
    },
    steps: [
      call((t) => t.trigger({ name: 'multi', to: ['ada', 'bob'], payload: { n: 1 }, transactionId: 'p1' })),
      call((t) => t.trigger({ name: 'multi', to: 'ada', payload: { n: 2 }, transactionId: 'p2' })),
      advance(2 * MINUTE),
    ],
  },
  {
    name: 'digest, regular, keyed: events join, the flush sends one message with every event',
    subscribers: ['ada'],
    transactions: ['d1', 'd2', 'd3', 'd4'],
    setup: (t) => t.workflows.upsert(workflow('dg', [digest({ digestKey: 'thread' }), inApp('{{ step.total_count }} in {{ payload.thread }}')])).then(() => undefined),
    steps: [
      call((t) => t.trigger({ name: 'dg', to: 'ada', payload: { thread: 'x' }, transactionId: 'd1' })),
      call((t) => t.triggerBulk([
        { name: 'dg', to: 'ada', payload: { thread: 'x' }, transactionId: 'd2' },
        { name: 'dg', to: 'ada', payload: { thread: 'y' }, transactionId: 'd3' },
      ])),
      advance(MINUTE),
      call((t) => t.trigger({ name: 'dg', to: 'ada', payload: { thread: 'x' }, transactionId: 'd4' })),
      advance(5 * MINUTE),
    ],
  },
  {
    name: 'digest, backoff: the first event goes through, the next ones are digested',
    subscribers: ['ada'],
    transactions: ['k1', 'k2', 'k3'],
    setup: (t) => t.workflows.upsert(workflow('bo', [digest({ type: 'backoff', backoffAmount: 10, backoffUnit: 'minutes' }), inApp('{{ step.total_count }} events')])).then(() => undefined),
    steps: [
      call((t) => t.trigger({ name: 'bo', to: 'ada', transactionId: 'k1' })),
      advance(MINUTE),
      call((t) => t.trigger({ name: 'bo', to: 'ada', transactionId: 'k2' })),
      call((t) => t.trigger({ name: 'bo', to: 'ada', transactionId: 'k3' })),
      advance(6 * MINUTE),
    ],
  },
  {
    name: 'digest, updateMode: each join moves the flush',
    subscribers: ['ada'],
    transactions: ['u1', 'u2'],
    setup: (t) => t.workflows.upsert(workflow('um', [digest({ updateMode: true }), inApp('{{ step.total_count }} events')])).then(() => undefined),
    steps: [
      call((t) => t.trigger({ name: 'um', to: 'ada', transactionId: 'u1' })),
      advance(4 * MINUTE),
      call((t) => t.trigger({ name: 'um', to: 'ada', transactionId: 'u2' })),
      advance(2 * MINUTE),
      advance(4 * MINUTE),
    ],
  },
  {
    name: 'digest, timed: events gather until 11:00 on the subscriber\'s clock',
    subscribers: ['ada'],
    transactions: ['m1', 'm2'],
    setup: (t) =>
      t.workflows.upsert(workflow('tm', [{ template: { type: 'digest' }, metadata: { type: 'timed', unit: 'days', amount: 1, timed: { atTime: '11:00' } } }, inApp('{{ step.total_count }} at eleven')])).then(() => undefined),
    steps: [call((t) => t.trigger({ name: 'tm', to: 'ada', transactionId: 'm1' })), call((t) => t.trigger({ name: 'tm', to: 'ada', transactionId: 'm2' })), advance(24 * 60 * MINUTE)],
  },
  {
    name: 'delay, scheduled: the walk resumes at the payload date',
    subscribers: ['ada'],
    transactions: ['s1'],
    setup: (t) => t.workflows.upsert(workflow('sd', [{ template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'at' } }, inApp('on time')])).then(() => undefined),
    steps: [call((t) => t.trigger({ name: 'sd', to: 'ada', payload: { at: '2026-03-02T10:30:00Z' }, transactionId: 's1' })), advance(30 * MINUTE)],
  },
  {
    name: 'cancel: the digest a cancelled event opened passes to the next event',
    subscribers: ['ada'],
    transactions: ['c1', 'c2', 'c3'],
    setup: (t) => t.workflows.upsert(workflow('cx', [digest({}), inApp('{{ step.total_count }} left')])).then(() => undefined),
    steps: [
      call((t) => t.triggerBulk(['c1', 'c2', 'c3'].map((transactionId) => ({ name: 'cx', to: 'ada', transactionId })))),
      call((t) => t.cancel('c1')),
      advance(5 * MINUTE),
    ],
  },
  {
    name: 'mark-as, actions and archive on stored messages',
    subscribers: ['ada'],
    transactions: ['seed-1', 'seed-2', 'seed-3'],
    setup: seededInbox,
    steps: [
      call(async (t) => t.messages.markAs('ada', { messageId: await messageOf(t, 'seed-1'), markAs: 'read' })),
      call(async (t) => t.messages.action('ada', await messageOf(t, 'seed-2'), 'primary', { status: 'done', payload: { ok: true } })),
      call(async (t) => {
        const { items } = await t.messages.feed('ada', { limit: 100 });
        return t.messages.markAs('ada', { messageId: items.map((m) => m._id), markAs: 'seen' });
      }),
      call(async (t) => t.messages.archive('ada', [await messageOf(t, 'seed-3')])),
    ],
  },
  {
    name: "the Inbox's bulk actions by filter: seen, read-all, archive-read, delete-all",
    subscribers: ['ada'],
    transactions: ['seed-1', 'seed-2', 'seed-3'],
    setup: seededInbox,
    steps: [
      call((t) => t.messages.markSeen('ada', { filter: {} })),
      call(async (t) => t.messages.markAs('ada', { messageId: await messageOf(t, 'seed-1'), markAs: 'read' })),
      call((t) => t.messages.archiveRead('ada')),
      call((t) => t.messages.readAll('ada')),
      call((t) => t.messages.deleteAll('ada', { archived: true })),
    ],
  },
  {
    name: 'snooze and the unsnooze job',
    subscribers: ['ada'],
    transactions: ['seed-1', 'seed-2', 'seed-3'],
    setup: seededInbox,
    steps: [call(async (t) => t.messages.snooze('ada', await messageOf(t, 'seed-2'), { until: '2026-03-02T11:00:00Z' })), advance(61 * MINUTE)],
  },
  {
    name: 'webhooks: message sent, failed and read, and walks completed, each written to the outbox with its change',
    subscribers: ['ada', 'bob'],
    transactions: ['w1', 'w2'],
    async setup(t) {
      await withChannels(t);
      await t.workflows.upsert(workflow('hooked', [inApp('note {{ payload.n }}'), { template: { type: 'email', subject: 's', content: 'mail {{ payload.n }}' } }]));
      await t.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
      await t.webhooks.create({ url: 'https://app.example/hooks', events: ['message.sent', 'message.warning', 'message.read', 'workflow.run.completed'] });
    },
    steps: [
      call((t) => t.trigger({ name: 'hooked', to: ['ada', 'bob'], payload: { n: 1 }, transactionId: 'w1' })),
      call(async (t) => t.messages.markAs('ada', { messageId: await messageOf(t, 'w1'), markAs: 'read' })),
      call((t) => t.trigger({ name: 'hooked', to: 'ada', payload: { n: 2 }, transactionId: 'w2' })),
    ],
  },
  {
    name: 'preferences update, then a trigger that reads them',
    subscribers: ['ada'],
    transactions: ['pf1'],
    async setup(t) {
      await withChannels(t);
      await t.workflows.upsert(workflow('pf', [inApp('in app'), { template: { type: 'email', subject: 's', content: 'mail' } }]));
      await t.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
    },
    steps: [
      call((t) => t.preferences.update('ada', { channels: { email: false } })),
      call((t) => t.preferences.update('ada', { workflowId: 'pf', channels: { in_app: true } })),
      call((t) => t.trigger({ name: 'pf', to: 'ada', transactionId: 'pf1' })),
    ],
  },
  {
    name: 'code workflow: a custom step, in-app, a delay, a digest of two events, then an email with the digest and the in-app flags',
    subscribers: ['ada'],
    transactions: ['c1', 'c2'],
    workflows: () => [
      scriptedCodeWorkflow('coded', [
        { stepId: 'ref', type: 'custom', outputs: (payload) => ({ ref: `R-${String(payload['n'])}` }) },
        { stepId: 'note', type: 'in_app', outputs: (payload, results) => ({ body: `note ${String(results.get('ref')?.['ref'])}` }) },
        { stepId: 'wait', type: 'delay', outputs: () => ({ amount: 2, unit: 'minutes' }) },
        { stepId: 'gather', type: 'digest', outputs: () => ({ amount: 5, unit: 'minutes' }) },
        {
          stepId: 'mail',
          type: 'email',
          outputs: (_payload, results) => ({ subject: `${(results.get('gather')?.['events'] as unknown[]).length} events`, body: `read: ${String(results.get('note')?.['read'])}` }),
        },
      ]),
    ],
    setup: withChannels,
    steps: [call((t) => t.trigger({ name: 'coded', to: 'ada', payload: { n: 1 }, transactionId: 'c1' })), advance(MINUTE), call((t) => t.trigger({ name: 'coded', to: 'ada', payload: { n: 2 }, transactionId: 'c2' })), advance(2 * MINUTE), advance(5 * MINUTE), advance(5 * MINUTE)],
  },
  {
    name: 'code workflow of in-app steps alone: its runs made before the trigger, its messages stored by the trigger\'s transaction',
    subscribers: ['ada', 'bob'],
    transactions: ['ci1', 'ci2', 'ci3'],
    workflows: () => [
      scriptedCodeWorkflow('coded-inbox', [
        { stepId: 'first', type: 'in_app', outputs: (payload) => ({ body: `first ${String(payload['n'])}` }) },
        { stepId: 'second', type: 'in_app', outputs: (payload, results) => ({ body: `second ${String(payload['n'])}, first read: ${String(results.get('first')?.['read'])}` }) },
      ]),
    ],
    setup: async (t) => void (await t.subscribers.upsert({ subscriberId: 'bob', firstName: 'Bob' })),
    steps: [
      call((t) => t.triggerBulk([
        { name: 'coded-inbox', to: { subscriberId: 'ada', firstName: 'Ada' }, payload: { n: 1 }, transactionId: 'ci1' },
        { name: 'coded-inbox', to: ['ada', 'bob'], payload: { n: 2 }, transactionId: 'ci2' },
      ])),
      call((t) => t.trigger({ name: 'coded-inbox', to: 'bob', payload: { n: 3 }, transactionId: 'ci3' })),
    ],
  },
  {
    name: 'throttle and caps: runs counted in the walk’s commit, a send counted by a cap, a deferred send, an integration’s send rate',
    subscribers: ['ada'],
    transactions: ['th1', 'th2', 'th3'],
    caps: [{ id: 'mail', channel: 'email', limit: 1, per: { amount: 10, unit: 'minutes' }, mode: 'defer' }],
    async setup(t) {
      await withChannels(t);
      const [mail] = await t.integrations.list();
      await t.integrations.update(mail!._id, { rateLimit: { messages: 5, seconds: 60 } });
      await t.subscribers.upsert({ subscriberId: 'ada', email: 'ada@example.com' });
      await t.workflows.upsert(workflow('th', [{ template: { type: 'throttle' }, metadata: { amount: 1, unit: 'hours', limit: 1, key: 'k' } }, { template: { type: 'email', subject: 'n {{ payload.n }}', content: 'mail' } }]));
    },
    steps: [
      call((t) => t.triggerBulk([1, 2].map((n) => ({ name: 'th', to: 'ada', payload: { n, k: 'a' }, transactionId: `th${n}` })))),
      call((t) => t.trigger({ name: 'th', to: 'ada', payload: { n: 3, k: 'b' }, transactionId: 'th3' })),
      advance(10 * MINUTE),
    ],
  },
  {
    name: 'expiry: in-app messages leave at their expiresAt or ttl, and the sweep deletes them in transactions of its own',
    subscribers: ['ada'],
    transactions: ['x1', 'x2'],
    setup: (t) => t.workflows.upsert(workflow('brief', [{ ...inApp('brief {{ payload.n }}'), ttl: { amount: 5, unit: 'minutes' } }, inApp('kept {{ payload.n }}')])).then(() => undefined),
    steps: [
      // x1's messages expire at 10:03 (its expiresAt, before the ttl's 10:05); x2's first at 10:05, its second never.
      call((t) => t.trigger({ name: 'brief', to: 'ada', payload: { n: 1 }, transactionId: 'x1', expiresAt: '2026-03-02T10:03:00Z' })),
      call((t) => t.trigger({ name: 'brief', to: 'ada', payload: { n: 2 }, transactionId: 'x2' })),
      advance(6 * MINUTE),
    ],
  },
  {
    name: 'group commit: concurrent calls share one transaction, inline in-app, a delay, a tenant, a used transactionId; each call whole or absent',
    subscribers: ['ada', 'bob', 'cy', 'dan', 'eve', 'fay'],
    transactions: ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'],
    tenants: ['acme'],
    inlineInApp: true,
    async setup(t) {
      await t.workflows.upsert(workflow('hello', [inApp('Hi {{ subscriber.firstName }} {{ payload.n }}')]));
      await t.workflows.upsert(workflow('later', [{ template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, inApp('later {{ payload.n }}')]));
      await t.subscribers.upsert({ subscriberId: 'dan' });
      await t.topics.addSubscribers('team', ['dan']);
      await t.trigger({ name: 'hello', to: 'dan', payload: { n: 0 }, transactionId: 'g0' });
    },
    steps: [
      // Fired together: the first call commits alone, the ones that arrive during its commit share the
      // next. The calls name different subscribers, so no order of theirs changes what is stored. A call that fails is retried by itself, as its client would; one that committed before
      // failing is then refused as a used transactionId.
      call(async (t) => {
        const outcomes = await Promise.allSettled([
          t.trigger({ name: 'hello', to: { subscriberId: 'ada', firstName: 'Ada' }, payload: { n: 1 }, transactionId: 'g1' }),
          t.trigger({ name: 'hello', to: 'bob', payload: { n: 2 }, tenant: { identifier: 'acme', name: 'Acme' }, transactionId: 'g2' }),
          t.triggerBulk([
            { name: 'hello', to: ['eve', { subscriberId: 'cy', firstName: 'Cy' }], payload: { n: 3 }, transactionId: 'g3' },
            { name: 'hello', to: 'bob', payload: { n: 99 }, transactionId: 'g0' },
            { name: 'hello', to: { type: 'Topic', topicKey: 'team' }, payload: { n: 4 }, transactionId: 'g4' },
          ]),
          t.trigger({ name: 'later', to: 'fay', payload: { n: 5 }, transactionId: 'g5' }),
        ]);
        const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected' && !isTidingsError(o.reason, 'conflict'));
        if (failed) throw failed.reason;
      }),
      advance(MINUTE),
    ],
  },
  {
    name: 'a folder applied in one transaction: a workflow changed, one added and one removed, a catalog and a partial changed; a run triggered before keeps its revision, one after takes the new, and both read the catalog as applied',
    subscribers: ['ada'],
    transactions: ['w1', 'w2', 'w3'],
    async setup(t) {
      await t.workflows.apply({ files: [
        { file: 'hello.json', workflow: workflow('hello', [inApp('hello one'), { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, inApp("later one: {{ 'later' | t }}")]) },
        { file: 'old.json', workflow: workflow('old', [inApp('old')]) },
        { file: 'translations/en.json', text: '{ "bye": "bye one", "later": "later from the catalog, one" }' },
        { file: 'partials/sig.html', text: '— one' },
      ] });
      await t.trigger({ name: 'hello', to: 'ada', transactionId: 'w1' });
    },
    steps: [
      call((t) =>
        t.workflows.apply({
          files: [
            { file: 'hello.json', workflow: workflow('hello', [inApp('hello two'), { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'minutes' } }, inApp("later two: {{ 'later' | t }}")]) },
            { file: 'bye.json', workflow: workflow('bye', [inApp("{{ 'bye' | t }}")]) },
            { file: 'translations/en.json', text: '{ "bye": "bye two", "later": "later from the catalog, two" }' },
            { file: 'partials/sig.html', text: '— two' },
          ],
          prune: true,
        }),
      ),
      call((t) => t.trigger({ name: 'hello', to: 'ada', transactionId: 'w2' })),
      call((t) => t.trigger({ name: 'bye', to: 'ada', transactionId: 'w3' })),
      advance(2 * MINUTE),
    ],
  },
  ...WAIT_SCENARIOS,
];
