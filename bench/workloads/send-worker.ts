// Child process of the send-path workload: one engine sending through the fake provider (or an
// in-process one). Postgres: runs its job loop until SIGTERM; SIGUSR2 marks the start of the measured
// span. SQLite (the only process on its file): triggers the send itself once its loop runs.
// Prints READY, then TRIGGERED <epoch ms> when it triggered, and TIMING <json> when it stops (or, with
// the in-process provider, RESULT <json> once every job ran).
import { createTidings, type Storage } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import { sendTiming } from '../lib/send-timing.js';
import { sendProvider, setUpSending, triggerSend } from '../lib/send-setup.js';

export interface SendWorkerArgs {
  readonly backend: 'sqlite' | 'postgres';
  /** The SQLite file, or the Postgres URL and schema. */
  readonly filename?: string;
  readonly pgUrl?: string;
  readonly schema?: string;
  /** The fake provider; null for one in this process that accepts at once (the engine alone). */
  readonly providerUrl: string | null;
  /** Engine options under test (none: the defaults). */
  readonly options: { readonly deliveryConcurrency?: number; readonly batchSize?: number };
  /** Whether this process triggers the send (SQLite) or the bench does (Postgres). */
  readonly trigger: boolean;
}

const args = JSON.parse(process.argv[2]!) as SendWorkerArgs;
const epoch = () => performance.timeOrigin + performance.now();
const timing = sendTiming();
const storage: Storage & { close(): Promise<void> } =
  args.backend === 'sqlite' ? timing.storage(sqliteStorage({ filename: args.filename! })) : timing.storage(postgresStorage({ connectionString: args.pgUrl!, schema: args.schema!, max: 8 }));
const tidings = createTidings({ storage, providers: [timing.provider(sendProvider(args.providerUrl))], onError: (error) => console.error('[send-worker]', error), ...args.options });
if (args.trigger) await setUpSending(tidings, args.providerUrl);

if (args.providerUrl === null) {
  // The engine alone: run every job to the end, timed here.
  timing.start();
  const triggeredAt = epoch();
  await triggerSend(tidings);
  while ((await tidings.runDue()) > 0 || (await storage.jobs.nextDueAt('default')) !== null);
  console.log(`RESULT ${JSON.stringify({ triggeredAt, doneAt: epoch(), sent: timing.read().sends, timing: timing.read() })}`);
  await storage.close();
  process.exit(0);
}

tidings.start();
process.on('SIGUSR2', () => timing.start());
process.once('SIGTERM', async () => {
  const measured = timing.read();
  await tidings.stop();
  console.log(`TIMING ${JSON.stringify(measured)}`);
  await storage.close();
  process.exit(0);
});
console.log('READY');
if (args.trigger) {
  timing.start();
  const at = epoch();
  await triggerSend(tidings);
  console.log(`TRIGGERED ${at}`);
}
