/** @jsxImportSource preact */
/// <reference lib="dom" />
import { api, type Pending } from './api.js';
import { runOf, transactionOf } from './route.js';
import { useLoad } from './load.js';
import { ActionButton, Problem, Time } from './widgets.js';

/** Jobs that belong to a trigger (walks, fan-outs): those link to it and can be cancelled with it. */
const ofTrigger = (kind: string) => kind === 'walk' || kind === 'fanout';

/** Pending jobs (retrying ones with their last error) and open digests with their due times. */
export function PendingTables({ pending, onChange }: { pending: Pending; onChange: () => void }) {
  if (pending.jobs.length === 0 && pending.digests.length === 0) return <p class="muted">Nothing pending.</p>;
  return (
    <div class="pending">
      {pending.jobs.length > 0 && (
        <table class="jobs">
          <thead>
            <tr><th>Job</th><th>Runs at</th><th>Of</th><th>Subscriber</th><th>Step</th><th>Attempts</th><th>Last error</th><th /></tr>
          </thead>
          <tbody>
            {pending.jobs.map((job) => (
              <tr data-transaction={job.transactionId} data-kind={job.kind} class={job.lastError !== null ? 'retrying' : ''}>
                <td>{job.kind === 'digest' ? 'digest flush' : job.kind}</td>
                <td><Time at={job.runAt} /></td>
                <td class="of">
                  {ofTrigger(job.kind) ? (
                    <>transaction <a href={transactionOf(job.transactionId)}>{job.transactionId}</a></>
                  ) : job.digestId !== null ? (
                    <span class="muted">digest {job.digestId}</span>
                  ) : (
                    <span class="muted">{job.transactionId}</span>
                  )}
                </td>
                <td>{job.kind === 'walk' ? <a href={runOf(job.transactionId, job.subscriberId)}>{job.subscriberId}</a> : job.subscriberId}</td>
                <td>{job.stepIndex === null ? '' : `#${job.stepIndex + 1}`}</td>
                <td>{job.attempts}</td>
                <td class="error">{job.lastError ?? ''}</td>
                <td>{ofTrigger(job.kind) && <ActionButton class="cancel" label="Cancel" confirm="Cancel the transaction?" run={async () => { await api.cancel(job.transactionId); onChange(); }} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pending.digests.length > 0 && (
        <table class="digests">
          <thead>
            <tr><th>Open digest</th><th>Subscriber</th><th>Key</th><th>Opened</th><th>Due</th><th>Events</th></tr>
          </thead>
          <tbody>
            {pending.digests.map((d) => (
              <tr data-digest={d.id}>
                <td title={`workflow ${d.workflowId}`}>{d.id}</td>
                <td>{d.subscriberId}</td>
                <td>{d.digestKey ?? ''}</td>
                <td><Time at={d.openedAt} /></td>
                <td><Time at={d.dueAt} /></td>
                <td>{d.transactionIds.map((t) => <a class="tx-link" href={transactionOf(t)}>{t}</a>)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** How soon to look again: soon while a job of it is due within a minute, now and then while any waits. */
export function pollFor(pending: Pending, subscriberId?: string): number | null {
  const jobs = pending.jobs.filter((j) => subscriberId === undefined || j.subscriberId === subscriberId);
  if (jobs.some((j) => Date.parse(j.runAt) - Date.now() < 60_000)) return 1_000;
  return jobs.length > 0 || pending.digests.length > 0 ? 10_000 : null;
}

export function PendingView() {
  return <PendingSection filter={{}} />;
}

export function PendingSection({ filter }: { filter: { transactionId?: string } }) {
  const loaded = useLoad(() => api.pending(filter), [JSON.stringify(filter)], (p) => pollFor(p));
  return (
    <section>
      <h2>Pending</h2>
      <Problem text={loaded.error} />
      {loaded.value === undefined ? <p class="muted">Loading…</p> : <PendingTables pending={loaded.value} onChange={loaded.reload} />}
    </section>
  );
}
