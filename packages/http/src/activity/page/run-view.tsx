/** @jsxImportSource preact */
/// <reference lib="dom" />
import { api, retryable, type ActivityMessage } from './api.js';
import { CHANNEL_LABEL, STATUS_TONE, statusLabel } from './format.js';
import { useLoad } from './load.js';
import { PendingTables, pollFor } from './pending-tables.js';
import { listOf, transactionOf, workflowOf } from './route.js';
import { Steps } from './steps.js';
import { EmailView } from './email-view.js';
import { ActionButton, Badge, Json, Problem, Time } from './widgets.js';

function Messages({ messages }: { messages: readonly ActivityMessage[] }) {
  if (messages.length === 0) return <p class="muted">No message.</p>;
  return (
    <table class="messages">
      <thead>
        <tr><th>Step</th><th>Channel</th><th>Status</th><th>Made</th><th>Provider</th><th>Provider's id</th><th>Error</th><th>Message id</th></tr>
      </thead>
      <tbody>
        {messages.map((m) => (
          <tr data-channel={m.channel} data-status={m.status} id={`message-${m._id}`}>
            <td>#{m.stepIndex + 1}</td>
            <td>{CHANNEL_LABEL[m.channel] ?? m.channel}</td>
            <td><Badge tone={STATUS_TONE[m.status] ?? 'info'}>{statusLabel(m.status)}</Badge></td>
            <td><Time at={m.createdAt} /></td>
            {/* A message that was not sent went through no provider, whatever integration was picked. */}
            <td class="provider">{m.status === 'warning' ? '' : (m.providerId ?? '')}</td>
            <td><code>{m.providerMessageId ?? ''}</code></td>
            <td class="error">{m.errorText ?? ''}</td>
            <td><code class="muted">{m._id}</code></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One subscriber's run of one notification: its messages, each run's steps, what is still pending. */
export function RunView({ transactionId, subscriberId }: { transactionId: string; subscriberId: string }) {
  const loaded = useLoad(
    async () => {
      const [page, records, pending] = await Promise.all([api.activity({ transaction: transactionId, subscriber: subscriberId }, 0, 1), api.explain(transactionId, subscriberId), api.pending({ transactionId })]);
      return { item: page.data[0], records, pending };
    },
    [transactionId, subscriberId],
    (v) => pollFor(v.pending, subscriberId),
  );
  const { value } = loaded;
  const item = value?.item;
  const mine = value ? { jobs: value.pending.jobs.filter((j) => j.subscriberId === subscriberId), digests: value.pending.digests.filter((d) => d.subscriberId === subscriberId) } : null;
  return (
    <section class="run-view">
      <nav class="crumbs">
        <a href={listOf({})}>Notifications</a> › <a href={transactionOf(transactionId)}>{transactionId}</a> › <span>{subscriberId}</span>
      </nav>
      <Problem text={loaded.error} />
      {value === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        <>
          <header class="card summary">
            <h2>{item?.template?.name ?? item?.templateIdentifier ?? 'Notification'}</h2>
            <p>
              {item && <><Time at={item.createdAt} /> · </>}
              to <a class="subscriber" href={listOf({ subscriber: subscriberId })}>{subscriberId}</a>
              {item?.subscriber.email !== undefined && <span class="muted"> ({item.subscriber.email})</span>}
            </p>
            {item && (
              <p class="workflow-line">
                workflow <a class="workflow-history" href={workflowOf(item.templateIdentifier)} title="Its revisions, each with its diff">{item.templateIdentifier}</a>
                {value.records[0]?.revision !== undefined && (
                  <>
                    , triggered with revision <strong class="trigger-revision">{value.records[0].revision}</strong>
                  </>
                )}
              </p>
            )}
            {item && <Json value={item.payload} />}
            <div class="buttons">
              {item?.messages.some(retryable) && <ActionButton class="retry" label="Retry failed steps" run={async () => { await api.retry(transactionId, subscriberId); loaded.reload(); }} />}
              {value.pending.jobs.length > 0 && <ActionButton class="cancel" label="Cancel transaction" confirm="Cancel every pending job of it?" run={async () => { await api.cancel(transactionId); loaded.reload(); }} />}
            </div>
          </header>
          <h3>Messages</h3>
          <Messages messages={item?.messages ?? []} />
          {(item?.messages ?? []).filter((m) => m.channel === 'email').map((m) => <EmailView subscriberId={subscriberId} message={m} />)}
          <h3>Steps</h3>
          <Steps records={value.records} messages={item?.messages ?? []} workflow={item?.templateIdentifier} />
          <h3>Pending</h3>
          {mine && <PendingTables pending={mine} onChange={loaded.reload} />}
        </>
      )}
    </section>
  );
}
