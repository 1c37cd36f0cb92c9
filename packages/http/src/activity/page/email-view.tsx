/** @jsxImportSource preact */
/// <reference lib="dom" />
import { useState } from 'preact/hooks';
import { api, type ActivityMessage, type SentEmail } from './api.js';
import { Problem } from './widgets.js';

/**
 * A sent email as its recipient got it: the HTML in a sandboxed frame (no scripts, no same origin, so
 * nothing in it can reach the page or the API key) and the text part, loaded when opened.
 */
export function EmailView({ subscriberId, message }: { subscriberId: string; message: ActivityMessage }) {
  const [email, setEmail] = useState<SentEmail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const open = async (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open || email) return;
    try {
      setEmail(await api.email(subscriberId, message._id));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  return (
    <details class="email-view" data-message={message._id} onToggle={open}>
      <summary>Email of step #{message.stepIndex + 1}{message.subject ? `: ${message.subject}` : ''}</summary>
      <Problem text={error ?? undefined} />
      {email && (
        <div class="email-parts">
          <p class="muted">{email.layoutId ? `Layout ${email.layoutId}` : 'No layout'}{email.preheader ? ` · preheader: ${email.preheader}` : ''}</p>
          <iframe class="email-html" title="The email's HTML" sandbox="" srcdoc={email.html} />
          <h4>Text part</h4>
          <pre class="email-text">{email.text}</pre>
        </div>
      )}
    </details>
  );
}
