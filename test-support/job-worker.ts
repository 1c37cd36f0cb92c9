import { createTidings, type Storage } from '@tidings/core';

/**
 * The child process of the multi-process tests, over the storage its fixture opened. `work`: run the
 * job loop until SIGTERM, printing READY once started and `DONE <messages>` at the end;
 * `claim-and-die <n>`: lease n due jobs, then SIGKILL itself with them in hand.
 */
export async function runJobWorker(storage: Storage, mode: string | undefined, count: string | undefined): Promise<void> {
  if (mode === 'claim-and-die') {
    const jobs = await storage.jobs.claimDue({ workerId: 'doomed', now: new Date().toISOString(), limit: Number(count), leaseMs: 1_500 });
    console.log(`CLAIMED ${jobs.length}`);
    process.kill(process.pid, 'SIGKILL');
    return;
  }
  // A storage without LISTEN/NOTIFY finds other processes' jobs when its loop next looks: look often.
  const tidings = createTidings({ storage, leaseMs: 1_500, batchSize: 25, maxIdleMs: 200 });
  let ran = 0;
  tidings.events.on('message.created', () => ran++);
  tidings.start();
  console.log('READY');
  process.on('SIGTERM', async () => {
    await tidings.stop();
    console.log(`DONE ${ran}`);
    await storage.close();
    process.exit(0);
  });
}
