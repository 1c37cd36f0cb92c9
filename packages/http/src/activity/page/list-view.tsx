/** @jsxImportSource preact */
/// <reference lib="dom" />
import { useState } from 'preact/hooks';
import { api, retryable, type ActivityItem } from './api.js';
import { useLoad } from './load.js';
import { FILTER_KEYS, listOf, runOf, transactionOf, workflowOf, type Filters } from './route.js';
import { ActionButton, MessageBadge, Problem, SkippedBadge, Time } from './widgets.js';
import { statusLabel } from './format.js';

const CHANNELS = ['in_app', 'email', 'sms', 'chat', 'push'];
/** What became of a step: the API's values, shown by their labels (`warning` reads "not sent"). */
const STATUSES = ['sent', 'error', 'warning', 'skipped'];

function FilterForm({ filters }: { filters: Filters }) {
  const [draft, setDraft] = useState<Record<string, string>>({ ...filters });
  const field = (key: (typeof FILTER_KEYS)[number]) => ({
    name: key,
    value: draft[key] ?? '',
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });
  const apply = (e: Event) => {
    e.preventDefault();
    location.hash = listOf(Object.fromEntries(Object.entries(draft).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, v.trim()])));
  };
  return (
    <form class="filters" onSubmit={apply}>
      <label>Workflow<input {...field('workflow')} placeholder="identifier or id" /></label>
      <label>Subscriber<input {...field('subscriber')} placeholder="subscriberId" /></label>
      <label>Transaction<input {...field('transaction')} placeholder="transactionId" /></label>
      <label>Channel<select {...field('channel')}><option value="">any</option>{CHANNELS.map((c) => <option value={c}>{c}</option>)}</select></label>
      <label>Status<select {...field('status')}><option value="">any</option>{STATUSES.map((s) => <option value={s}>{statusLabel(s)}</option>)}</select></label>
      <label>From<input type="datetime-local" step="1" {...field('after')} /></label>
      <label>To<input type="datetime-local" step="1" {...field('before')} /></label>
      <div class="buttons">
        <button type="submit">Apply</button>
        <a href={listOf({})}>Clear</a>
      </div>
    </form>
  );
}

/** One recipient of a notification: their messages, a link to their run, and retry when a step failed. */
export function RecipientRow({ item, onChange }: { item: ActivityItem; onChange: () => void }) {
  const { subscriberId, firstName, lastName } = item.subscriber;
  const name = [firstName, lastName].filter(Boolean).join(' ');
  return (
    <li class="recipient" data-subscriber={subscriberId}>
      <a class="subscriber" href={listOf({ subscriber: subscriberId })} title="Every notification of this subscriber">{subscriberId}</a>
      {name !== '' && <span class="name">{name}</span>}
      <span class="badges">
        {item.messages.length === 0 && item.skipped.length === 0 ? <span class="muted">no message (yet)</span> : stepsInOrder(item).map((s) => ('_id' in s ? <MessageBadge message={s} /> : <SkippedBadge step={s} />))}
      </span>
      <a class="run-link" href={runOf(item.transactionId, subscriberId)}>steps →</a>
      {item.messages.some(retryable) && (
        <ActionButton
          class="retry"
          label="Retry"
          run={async () => {
            await api.retry(item.transactionId, subscriberId);
            onChange();
            location.hash = runOf(item.transactionId, subscriberId);
          }}
        />
      )}
    </li>
  );
}

/** A recipient's messages and skipped steps, in step order. */
const stepsInOrder = (item: ActivityItem) => [...item.messages, ...item.skipped].sort((a, b) => a.stepIndex - b.stepIndex);

/** Items of one transaction, in the order the list gave them. */
function byTransaction(items: readonly ActivityItem[]): ActivityItem[][] {
  const groups = new Map<string, ActivityItem[]>();
  for (const item of items) groups.set(item.transactionId, [...(groups.get(item.transactionId) ?? []), item]);
  return [...groups.values()];
}

export function NotificationCard({ items, onChange }: { items: readonly ActivityItem[]; onChange: () => void }) {
  const first = items[0]!;
  return (
    <article class="tx" data-transaction={first.transactionId}>
      <header>
        <Time at={first.createdAt} />
        <a class="workflow" href={listOf({ workflow: first.templateIdentifier })} title="Every notification of this workflow">{first.template?.name ?? first.templateIdentifier}</a>
        <a class="history" href={workflowOf(first.templateIdentifier)} title="The workflow's revisions">history</a>
        <a class="transaction" href={transactionOf(first.transactionId)}>{first.transactionId}</a>
      </header>
      <ul class="recipients">{items.map((item) => <RecipientRow item={item} onChange={onChange} />)}</ul>
    </article>
  );
}

export function ListView({ filters, page }: { filters: Filters; page: number }) {
  const loaded = useLoad(() => api.activity(filters, page), [JSON.stringify(filters), page]);
  const result = loaded.value;
  return (
    <section>
      <FilterForm filters={filters} />
      <Problem text={loaded.error} />
      {result === undefined ? <p class="muted">Loading…</p> : result.data.length === 0 ? <p class="empty muted">No notifications match.</p> : byTransaction(result.data).map((items) => <NotificationCard items={items} onChange={loaded.reload} />)}
      <nav class="pager">
        {page > 0 && <a href={listOf(filters, page - 1)}>← newer</a>}
        {result?.hasMore && <a href={listOf(filters, page + 1)}>older →</a>}
      </nav>
    </section>
  );
}
