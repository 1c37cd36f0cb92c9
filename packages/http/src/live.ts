import type { Tidings } from '@tidings/core';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from './context.js';
import { onLiveChanges } from './live-source.js';
import { checkedParams } from './params.js';
import { messageToWire } from './wire.js';

/**
 * `GET /v1/subscribers/{id}/events`: Server-Sent Events for one subscriber of the caller's
 * environment — `counts` at once and after every change, `message` for each new in-app message,
 * `update` for each changed one — and a comment every 15 s to keep proxies from closing it. On a
 * storage that relays changes (Postgres) they come from every process, else from this process's
 * engine.
 */
export const liveEvents = (open: Set<() => void>) => async (c: Context<AppEnv>): Promise<Response> => {
  const tidings: Tidings = c.get('tidings');
  const { subscriberId } = checkedParams({ subscriberId: c.req.param('subscriberId')! }) as { subscriberId: string };
  const initial = await tidings.messages.counts(subscriberId);
  return streamSSE(c, async (stream) => {
    let closed = false;
    const queue: { event: string; data: string }[] = [];
    let wake: (() => void) | null = null;
    const push = (event: string, data: unknown) => {
      queue.push({ event, data: JSON.stringify(data) });
      wake?.();
    };
    const sendCounts = () => {
      tidings.messages.counts(subscriberId).then((counts) => push('counts', counts), () => undefined);
    };
    const unsubscribe = onLiveChanges(tidings, (change) => {
      if (change.subscriberId !== subscriberId) return;
      change.message().then(
        (message) => {
          if (message) push(change.kind === 'created' ? 'message' : 'update', messageToWire(message));
          sendCounts();
        },
        () => undefined,
      );
    }, sendCounts);
    const heartbeat = setInterval(() => push('ping', {}), 15_000);
    const end = () => {
      closed = true;
      wake?.();
    };
    // A shutting-down server ends every stream (see `closeLiveStreams`).
    open.add(end);
    stream.onAbort(end);
    push('counts', initial);
    try {
      while (!closed) {
        while (queue.length > 0 && !closed) {
          const next = queue.shift()!;
          await stream.writeSSE(next);
        }
        if (!closed) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      open.delete(end);
      clearInterval(heartbeat);
      unsubscribe();
    }
  });
};
