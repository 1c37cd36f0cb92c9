// Child process of the fan-out workload: on a database already seeded, one trigger to the topic, timed
// until every message is stored; prints what it measured as JSON. Its own process, so the RSS it
// reports grew from the fan-out alone (the seeding ran elsewhere).
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';

const [filename] = process.argv.slice(2);
const storage = sqliteStorage({ filename: filename! });
const tidings = createTidings({ storage });
await tidings.subscribers.get('member-0');
global.gc?.();
const before = process.memoryUsage().rss;
const started = performance.now();
const result = await tidings.trigger({ name: 'fan', to: { type: 'Topic', topicKey: 'everyone' } });
const triggered = performance.now();
await tidings.runDue();
const done = performance.now();
if ((await tidings.pending()).jobs.length !== 0 || !result.transactionId) throw new Error('fan-out did not finish');
const peak = process.resourceUsage().maxRSS * 1024;
console.log(`RESULT ${JSON.stringify({ seconds: (done - started) / 1000, triggerSeconds: (triggered - started) / 1000, growthMb: Math.max(0, peak - before) / 1_048_576 })}`);
await storage.close();
