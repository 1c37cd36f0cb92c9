import { sendRun } from '/tmp/wt-sendpath/bench/lib/send-run.js';
import { describeTiming } from '/tmp/wt-sendpath/bench/lib/send-timing.js';
const [backend, size, workers, latency, opts] = process.argv.slice(2);
const r = await sendRun({ backend: backend as 'sqlite', size: Number(size), workers: Number(workers ?? 1), latencyMs: latency === 'null' ? null : Number(latency ?? 50), options: JSON.parse(opts ?? '{}'), pgUrl: 'postgres://postgres@127.0.0.1:5432/test' });
console.log(backend, size, workers, opts, `${r.perSecond.toFixed(0)}/s in ${r.seconds.toFixed(1)} s; provider max in flight ${r.provider?.maxInFlight}`);
r.timings.forEach((t, i) => console.log(describeTiming(`p${i}`, t)));
process.exit(0);
