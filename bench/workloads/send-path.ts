import { describeTiming, type SendTiming } from '../lib/send-timing.js';
import { sendRun, type SendRun } from '../lib/send-run.js';
import type { BenchContext, Row } from './types.js';

/** The fake provider's answer time: a hosted email API's usual. */
const LATENCY_MS = 50;
const FULL_SIZE = 600_000;

/** Where the time went, as the log and docs print it: the provider's view, then each process's. */
function logWhere(ctx: BenchContext, label: string, run: SendRun) {
  const p = run.provider;
  ctx.log(`  ${label}: ${run.emails.toLocaleString('en')} emails in ${run.seconds.toFixed(1)} s = ${Math.round(run.perSecond).toLocaleString('en')}/s${p ? `; the provider held ${p.maxInFlight} requests at most, ${p.duplicates} sent twice` : ''}`);
  run.timings.forEach((t: SendTiming, i) => ctx.log(`    ${describeTiming(`process ${i + 1}`, t)}`));
}

/**
 * The send path: one email step to every member of a topic, through a local fake of SendGrid's
 * `POST /v3/mail/send` that answers after 50 ms (its own process: the bench's), timed from the trigger
 * to the last 202. SQLite in one engine process; Postgres with one and two worker processes; and the
 * engine alone (an in-process provider that answers at once) for the share that is its own work.
 */
export async function sendPathWorkload(ctx: BenchContext): Promise<Row[]> {
  const size = ctx.quick ? 1_000 : 30_000;
  const rows: Row[] = [];
  const sqlite = await sendRun({ backend: 'sqlite', size, workers: 1, latencyMs: LATENCY_MS });
  logWhere(ctx, 'SQLite, 1 process, 50 ms provider', sqlite);
  rows.push({ workload: `send path: ${size.toLocaleString('en')} emails through a fake SendGrid answering in ${LATENCY_MS} ms, SQLite, 1 process, default options (trigger to the last 202)`, backend: 'sqlite (email, 50 ms)', unit: 'emails/s', value: sqlite.perSecond, spread: 0, runs: 1, target: '≥ 1,000 emails/s', ...(!ctx.quick && { met: sqlite.perSecond >= 1_000 }) });
  const alone = await sendRun({ backend: 'sqlite', size, workers: 1, latencyMs: null });
  logWhere(ctx, 'SQLite, 1 process, in-process provider (the engine alone)', alone);
  rows.push({ workload: 'send path: the same emails through an in-process provider answering at once (the engine alone), SQLite, 1 process', backend: 'sqlite (email, 0 ms)', unit: 'emails/s', value: alone.perSecond, spread: 0, runs: 1 });
  if (!ctx.pgUrl) {
    ctx.log('  Postgres send rows skipped: set TIDINGS_TEST_PG_URL');
    return rows;
  }
  const one = await sendRun({ backend: 'postgres', size, workers: 1, latencyMs: LATENCY_MS, pgUrl: ctx.pgUrl });
  logWhere(ctx, 'Postgres, 1 worker process', one);
  const two = await sendRun({ backend: 'postgres', size, workers: 2, latencyMs: LATENCY_MS, pgUrl: ctx.pgUrl });
  logWhere(ctx, 'Postgres, 2 worker processes', two);
  rows.push(
    { workload: `send path: ${size.toLocaleString('en')} emails through the ${LATENCY_MS} ms fake SendGrid, Postgres, 1 worker process`, backend: 'postgres (email, 50 ms)', unit: 'emails/s', value: one.perSecond, spread: 0, runs: 1 },
    { workload: `send path: the same, Postgres, 2 worker processes`, backend: 'postgres (email, 50 ms)', unit: 'emails/s', value: two.perSecond, spread: 0, runs: 1, ratio: two.perSecond / one.perSecond },
  );
  return rows;
}

/**
 * 600,000 emails (a Novu self-hoster's broadcast) through the 50 ms fake SendGrid, Postgres, two
 * worker processes: seconds from the trigger to the last accepted send. The quick run sends fewer
 * and says so; its figure is the measured one, extrapolated linearly in the row's name only.
 */
export async function send600kWorkload(ctx: BenchContext): Promise<Row[]> {
  if (!ctx.pgUrl) {
    ctx.log('  skipped: set TIDINGS_TEST_PG_URL to send 600,000 emails on Postgres');
    return [];
  }
  const size = ctx.quick ? 2_000 : FULL_SIZE;
  const run = await sendRun({ backend: 'postgres', size, workers: 2, latencyMs: LATENCY_MS, pgUrl: ctx.pgUrl, timeoutMs: 1_800_000 });
  logWhere(ctx, `Postgres, 2 worker processes, ${size.toLocaleString('en')} emails`, run);
  const extrapolated = (FULL_SIZE / run.perSecond).toFixed(0);
  const name =
    size === FULL_SIZE
      ? `send path: 600,000 emails through the ${LATENCY_MS} ms fake SendGrid, Postgres, 2 worker processes (trigger to the last 202)`
      : `send path: ${size.toLocaleString('en')} emails (quick run, not 600,000) through the ${LATENCY_MS} ms fake SendGrid, Postgres, 2 worker processes; at this rate 600,000 would take ${extrapolated} s (extrapolated, not measured)`;
  return [
    { workload: name, backend: 'postgres (email, 50 ms)', unit: 's until the last accepted', value: run.seconds, spread: 0, runs: 1, target: '< 300 s for 600,000', ...(size === FULL_SIZE && { met: run.seconds < 300 }) },
    { workload: `send path: the same run's rate, Postgres, 2 worker processes`, backend: 'postgres (email, 50 ms)', unit: 'emails/s', value: run.perSecond, spread: 0, runs: 1, target: '≥ 2,000 emails/s', ...(size === FULL_SIZE && { met: run.perSecond >= 2_000 }) },
  ];
}
