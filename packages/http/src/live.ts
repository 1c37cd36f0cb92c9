import { type Tidings } from '@tidings/core';
import { notFound } from '@tidings/core/internal';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from './context.js';
import { watchSubscriber } from './live-hub.js';
import { checkedParams } from './params.js';
import { messageToWire } from './wire.js';

/**
 * `GET /v1/subscribers/{id}/events`: Server-Sent Events for one subscriber of the caller's
 * environment — `counts` once changes can reach it and after every burst of changes, `message` for each new in-app
 * message, `update` for each changed one — and a `ping` every 15 s to keep proxies from closing it.
 * Changes are gathered per tick: a burst of more than MAX_LISTED_CHANGES (a bulk action), or one
 * that may have missed changes, sends `resync` instead of the messages (re-read the feed), then the
 * counts. On a storage that relays changes (Postgres) they come from every process, else from this
 * process's engine.
 */
const MAX_QUEUED_EVENTS = 100;

export const liveEvents = (open: Set<() => void>) => async (c: Context<AppEnv>): Promise<Response> => {
  const tidings: Tidings = c.get('tidings');
  const { subscriberId } = checkedParams({ subscriberId: c.req.param('subscriberId')! }) as { subscriberId: string };
  // The stream of a subscriber who does not exist is a 404 (the library would read empty counts).
  if (!(await tidings.subscribers.get(subscriberId))) throw notFound('Subscriber', subscriberId);
  return streamSSE(c, async (stream) => {
    let closed = false;
    const queue: { event: string; data: string }[] = [];
    let wake: (() => void) | null = null;
    const push = (event: string, data: unknown) => {
      // A reader that falls behind gets `resync` in place of what it has not read, not a growing queue.
      if (queue.length >= MAX_QUEUED_EVENTS) queue.splice(0, queue.length, { event: 'resync', data: '{}' });
      queue.push({ event, data: JSON.stringify(data) });
      wake?.();
    };
    const unwatch = watchSubscriber(tidings, subscriberId, async (burst) => {
      if (burst.overflow) push('resync', {});
      else {
        for (const change of burst.changes) {
          const message = await change.message();
          if (message) push(change.kind === 'created' ? 'message' : 'update', messageToWire(message));
        }
      }
      push('counts', await tidings.messages.counts(subscriberId));
    }, { firstBurstWhenReady: true });
    const heartbeat = setInterval(() => push('ping', {}), 15_000);
    const end = () => {
      closed = true;
      wake?.();
    };
    // A shutting-down server ends every stream (see `closeLiveStreams`).
    open.add(end);
    stream.onAbort(end);
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
      unwatch();
    }
  });
};
