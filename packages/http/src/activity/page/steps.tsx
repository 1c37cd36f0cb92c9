/** @jsxImportSource preact */
/// <reference lib="dom" />
import type { ActivityMessage, DecisionRecord } from './api.js';
import { firstInstant, when, withLocalTimes } from './format.js';
import { workflowOf } from './route.js';
import { Badge, Time } from './widgets.js';

type Entry = DecisionRecord['entries'][number];

/** What a step's decision is called on the page, and its colour. */
function outcome(entry: Entry): { label: string; tone: string } {
  switch (entry.decision) {
    case 'delivered':
      return entry.type === 'digest' ? { label: 'Sent at once', tone: 'ok' } : { label: 'Delivered', tone: 'ok' };
    case 'skipped':
      return { label: 'Skipped', tone: 'skip' };
    case 'delayed':
      return entry.type === 'digest' ? { label: 'Digested', tone: 'wait' } : { label: 'Delayed', tone: 'wait' };
    case 'held':
      return { label: 'Held', tone: 'wait' };
    case 'throttled':
      return { label: 'Throttled', tone: 'skip' };
    case 'failed':
      return { label: 'Failed', tone: 'fail' };
    case 'not_sent':
      return { label: 'Not sent', tone: 'warn' };
    case 'ran':
      return { label: 'Ran', tone: 'info' };
    case 'expired':
      return { label: 'Expired', tone: 'skip' };
  }
}

const shown = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value));

function Detail({ entry, sent }: { entry: Entry; sent: ActivityMessage | undefined }) {
  const filter = entry.failedFilter;
  const until = entry.decision === 'delayed' && entry.type === 'delay' ? firstInstant(entry.reason) : null;
  return (
    <div class="detail">
      {filter && (
        <p class="filter">
          Filter <code>{`${filter.on}.${filter.field}`}</code> {filter.operator} <code>{filter.expected}</code> did not pass: it was <code>{shown(filter.actual)}</code>
        </p>
      )}
      {until !== null ? (
        <p class="until">until {when(until)}</p>
      ) : entry.decision === 'delivered' && entry.type === 'in_app' ? (
        <p class="reason">in the inbox</p>
      ) : entry.decision === 'delivered' && entry.integration !== undefined && entry.attempts === undefined ? null : (
        <p class="reason">{withLocalTimes(entry.reason)}</p>
      )}
      {entry.integration !== undefined && (
        <p class="via">
          via <strong>{entry.integration}</strong>
          {entry.decision === 'delivered' && sent?.providerMessageId !== undefined && (
            <>
              {' '}as <code class="provider-id">{sent.providerMessageId}</code>
            </>
          )}
        </p>
      )}
      {entry.attempts !== undefined && (
        <ol class="attempts">
          {entry.attempts.map((a) => (
            <li data-outcome={a.outcome}>
              <strong>{a.integration}</strong> {a.outcome.replace('_', ' ')}: {a.reason}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function StepRow({ entry, messages }: { entry: Entry; messages: readonly ActivityMessage[] }) {
  const { label, tone } = outcome(entry);
  const sent = messages.find((m) => m.stepIndex === entry.stepIndex && m.status === 'sent');
  return (
    <li class="step" data-step={entry.stepIndex} data-type={entry.type} data-decision={entry.decision}>
      <span class="index">#{entry.stepIndex + 1}</span>
      <span class="type">{entry.type}</span>
      <Badge tone={tone}>{label}</Badge>
      <Detail entry={entry} sent={sent} />
    </li>
  );
}

/** Each run of the walk (a job run, a retry), oldest first, the workflow revision it walked, and what it decided at each step. */
export function Steps({ records, messages, workflow }: { records: readonly DecisionRecord[]; messages: readonly ActivityMessage[]; workflow: string | undefined }) {
  if (records.length === 0) return <p class="muted">No step has run yet.</p>;
  return (
    <ol class="runs">
      {records.map((record, i) => (
        <li class="run" data-job={record.jobId}>
          <h4>
            Run {i + 1} · <Time at={record.at} />
            {record.revision !== undefined && (
              <>
                {' '}· {workflow === undefined ? <span class="revision">revision {record.revision}</span> : <a class="revision" href={workflowOf(workflow)} title="The workflow's revisions">revision {record.revision}</a>}
              </>
            )}
          </h4>
          <ol class="steps">{record.entries.map((entry) => <StepRow entry={entry} messages={messages} />)}</ol>
        </li>
      ))}
    </ol>
  );
}
