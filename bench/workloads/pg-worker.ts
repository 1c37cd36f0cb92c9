// Child process of the Postgres scaling workload: drains due jobs until none are left, prints the count.
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';

const [url, schema] = process.argv.slice(2);
const storage = postgresStorage({ connectionString: url!, schema: schema!, max: 4 });
const tidings = createTidings({ storage, batchSize: 500 });
let ran = 0;
for (;;) {
  const n = await tidings.runDue();
  ran += n;
  if (n === 0 && (await storage.jobs.nextDueAt()) === null) break;
}
console.log(`RAN ${ran}`);
await storage.close();
