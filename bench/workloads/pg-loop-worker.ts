// Child process of the sustained-load workload: runs the job loop until SIGTERM, as a worker process would.
import { createTidings } from '@tidings/core';
import { postgresStorage } from '@tidings/postgres';

const [url, schema] = process.argv.slice(2);
const storage = postgresStorage({ connectionString: url!, schema: schema!, max: 4 });
const tidings = createTidings({ storage });
tidings.start();
console.log('READY');
process.once('SIGTERM', async () => {
  await tidings.stop();
  await storage.close();
  process.exit(0);
});
