/** @jsxImportSource preact */
/// <reference lib="dom" />
import { api } from './api.js';
import { NotificationCard } from './list-view.js';
import { useLoad } from './load.js';
import { PendingTables, pollFor } from './pending-tables.js';
import { listOf } from './route.js';
import { ActionButton, Json, Problem } from './widgets.js';

/** One notification: every recipient, what is pending of it, and cancel. */
export function TransactionView({ transactionId }: { transactionId: string }) {
  const loaded = useLoad(
    async () => {
      const [page, pending] = await Promise.all([api.activity({ transaction: transactionId }, 0, 50), api.pending({ transactionId })]);
      return { page, pending };
    },
    [transactionId],
    (v) => pollFor(v.pending),
  );
  const { value } = loaded;
  return (
    <section class="transaction-view">
      <nav class="crumbs">
        <a href={listOf({})}>Notifications</a> › <span>{transactionId}</span>
      </nav>
      <Problem text={loaded.error} />
      {value === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        <>
          {value.page.data.length === 0 ? <p class="muted">No recipient (yet).</p> : <NotificationCard items={value.page.data} onChange={loaded.reload} />}
          {value.page.hasMore && <p class="muted">The first 50 recipients are shown.</p>}
          {value.page.data[0] && <Json value={value.page.data[0].payload} />}
          <h3>Pending</h3>
          <PendingTables pending={value.pending} onChange={loaded.reload} />
          {value.pending.jobs.length > 0 && <ActionButton class="cancel" label="Cancel transaction" confirm="Cancel every pending job of it?" run={async () => { await api.cancel(transactionId); loaded.reload(); }} />}
        </>
      )}
    </section>
  );
}
