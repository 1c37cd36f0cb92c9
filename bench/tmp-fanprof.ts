import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
const size = Number(process.argv[2] ?? 100000);
const storage = sqliteStorage({ filename: `/tmp/prof/fp-${Date.now()}.db` });
const tidings = createTidings({ storage, batchSize: 1_000 });
await tidings.workflows.upsert({ name: 'Fan', triggers: [{ identifier: 'fan' }], steps: [{ template: { type: 'in_app', content: 'News for {{ subscriber.firstName }}' } }] });
const ids = Array.from({ length: size }, (_, i) => `member-${i}`);
const now = new Date().toISOString();
for (let i = 0; i < size; i += 5_000) {
  await storage.subscribers.upsertMany('default', ids.slice(i, i + 5_000).map((subscriberId, k) => ({ _id: `i-${i + k}`, patch: { subscriberId, firstName: `M${i + k}` } })), now, 'default');
  await tidings.topics.addSubscribers('everyone', ids.slice(i, i + 5_000));
}
const { Session } = await import('node:inspector/promises');
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.start');
const t0 = performance.now();
await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
await tidings.runDue();
console.log('total', (performance.now() - t0).toFixed(0));
const { profile } = await session.post('Profiler.stop');
(await import('node:fs')).writeFileSync('/tmp/prof/fan.cpuprofile', JSON.stringify(profile));
