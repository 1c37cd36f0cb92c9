/** @jsxImportSource preact */
/// <reference lib="dom" />
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ActivityMessage, SkippedStep } from './api.js';
import { CHANNEL_LABEL, STATUS_TONE, statusLabel, when } from './format.js';

export const Time = ({ at }: { at: string }) => <time dateTime={at} title={at}>{when(at)}</time>;

export const Badge = ({ tone, children }: { tone: string; children: ComponentChildren }) => <span class={`badge ${tone}`}>{children}</span>;

/** A message in one badge: its channel, coloured by its status. */
export const MessageBadge = ({ message }: { message: ActivityMessage }) => (
  <span class={`badge message ${STATUS_TONE[message.status] ?? 'info'}`} data-channel={message.channel} data-status={message.status} title={message.errorText ?? statusLabel(message.status)}>
    {CHANNEL_LABEL[message.channel] ?? message.channel}: {statusLabel(message.status)}
  </span>
);

/** A channel step skipped (no message), in a badge like a message's, its reason on hover. */
export const SkippedBadge = ({ step }: { step: SkippedStep }) => (
  <span class={`badge message ${STATUS_TONE['skipped']}`} data-channel={step.channel} data-status="skipped" title={step.reason}>
    {CHANNEL_LABEL[step.channel] ?? step.channel}: skipped
  </span>
);

export const Json = ({ value }: { value: unknown }) => (
  <details class="json">
    <summary>payload</summary>
    <pre>{JSON.stringify(value, null, 2)}</pre>
  </details>
);

export const Problem = ({ text }: { text: string | undefined }) => (text === undefined ? null : <p class="problem" role="alert">{text}</p>);

/**
 * A button that runs an action once at a time and says when it failed; `confirm` asks for a second
 * click first (no dialog: an operator's page, and dialogs block).
 */
export function ActionButton({ class: name, label, confirm, run }: { class: string; label: string; confirm?: string; run: () => Promise<unknown> }) {
  const [state, setState] = useState<'idle' | 'confirming' | 'busy'>('idle');
  const [error, setError] = useState<string>();
  const click = async () => {
    if (confirm !== undefined && state === 'idle') return setState('confirming');
    setState('busy');
    setError(undefined);
    try {
      await run();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
    setState('idle');
  };
  return (
    <span class="action">
      <button type="button" class={`${name}${state === 'confirming' ? ' confirming' : ''}`} disabled={state === 'busy'} onClick={click}>
        {state === 'confirming' ? confirm : label}
      </button>
      {error !== undefined && <span class="problem" role="alert">{error}</span>}
    </span>
  );
}
