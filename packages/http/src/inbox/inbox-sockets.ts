import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { contextKeys, contextKeyText } from '@tidings/core/internal';
import type { Duplex } from 'node:stream';
import type { Clock, Tidings, Workflow } from '@tidings/core';
import { liveReady, watchSubscriber, type LiveBurst } from '../live-hub.js';
import { Server as SocketIoServer } from 'socket.io';
import { WebSocketServer, type WebSocket } from 'ws';
import { socketMessage } from './inbox-shapes.js';
import { unreadCounts } from './inbox-routes.js';
import { readToken, type InboxEnvironment, type InboxSession } from './session.js';

/** A live listener of one subscriber: a socket.io socket or a plain WebSocket. */
type Listener = (event: string, data: unknown) => void;

/** The largest frame a client may send: Novu's client sends only pings and its connect packet. */
export const MAX_FRAME_BYTES = 16 * 1024;
/** How long a socket.io connection may wait before joining with a valid token. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface InboxSockets {
  /** Closes every live connection and stops listening to the engines. */
  close(): Promise<void>;
}

/**
 * Live updates for Novu's Inbox client on the HTTP server's own port, in both of the client's modes:
 * socket.io at `/socket.io/` (its default for a self-hosted `socketUrl`) and plain WebSocket frames
 * `{ event, data }` on any other path (`socketOptions: { socketType: 'cloud' }`). The token of the
 * session is checked on the handshake. A new in-app message sends `notification_received` (the
 * message entity, which the client maps itself), then `unseen_count_changed` and
 * `unread_count_changed` with the counts by severity; a change sends the two counts. Changes are
 * gathered per tick and subscriber (see `watchSubscriber`): "mark all as read" over 20,000 messages
 * is one pair of counts. On a storage that relays changes (Postgres) they come from every process.
 * Work is done only for subscribers with a connection in this process.
 */
export function attachInboxSockets(server: HttpServer, environments: readonly InboxEnvironment[], clock: Clock): InboxSockets {
  const byIdentifier = new Map(environments.map((e) => [e.applicationIdentifier, e] as const));
  const listeners = new Map<string, { readonly sockets: Set<Listener>; readonly unwatch: () => void }>();
  // Sessions of one subscriber in different contexts see different messages and counts: each context is its own audience.
  const keyOf = ({ environment, subscriberId, context }: InboxSession) => `${environment.applicationIdentifier}\u0000${subscriberId}\u0000${contextKeyText(contextKeys(context))}`;

  /** Adds a connection of the session's subscriber; the first one starts watching its changes. */
  function join(session: InboxSession, listener: Listener): () => void {
    const key = keyOf(session);
    let entry = listeners.get(key);
    if (!entry) {
      const sockets = new Set<Listener>();
      const unwatch = watchSubscriber(session.environment.tidings, session.subscriberId, (burst) => deliver(session.environment.tidings, burst, session.context, sendTo(sockets)));
      listeners.set(key, (entry = { sockets, unwatch }));
    }
    entry.sockets.add(listener);
    const { sockets, unwatch } = entry;
    return () => {
      sockets.delete(listener);
      if (sockets.size > 0 || listeners.get(key)?.sockets !== sockets) return;
      listeners.delete(key);
      unwatch();
    };
  }

  const io = new SocketIoServer(server, { cors: { origin: '*' }, serveClient: false, destroyUpgrade: false, maxHttpBufferSize: MAX_FRAME_BYTES, connectTimeout: CONNECT_TIMEOUT_MS });
  // A socket joins before its handshake ends, and the handshake ends once the relay listens: a
  // client that sees itself connected misses no change made after that.
  io.use((socket, next) => {
    let session: InboxSession;
    try {
      const token = (socket.handshake.auth as { token?: unknown })?.token ?? socket.handshake.query['token'];
      session = readToken(typeof token === 'string' ? token : undefined, byIdentifier, clock.now().getTime());
    } catch (error) {
      next(error as Error);
      // The refusal is sent; the connection under it is closed now rather than at the connect timeout.
      setImmediate(() => socket.conn.close());
      return;
    }
    const leave = join(session, (event, data) => socket.emit(event, data));
    socket.on('disconnect', leave);
    socket.conn.once('close', leave);
    void liveReady(session.environment.tidings).then(() => next());
  });

  // Plain WebSockets share the port: socket.io answers its own path, this every other upgrade. The
  // client only sends pings, so a larger frame closes the connection (1009) instead of being buffered.
  const plain = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/socket.io/')) return;
    let session: InboxSession;
    try {
      session = readToken(url.searchParams.get('token') ?? undefined, byIdentifier, clock.now().getTime());
    } catch {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
      return;
    }
    let ws: WebSocket | null = null;
    const leave = join(session, (event, data) => ws?.send(JSON.stringify({ event, data })));
    socket.once('close', leave);
    void liveReady(session.environment.tidings).then(() =>
      plain.handleUpgrade(request, socket, head, (opened: WebSocket) => {
        ws = opened;
        opened.on('message', (frame) => {
          if (frame.toString() === 'ping') opened.send('pong');
        });
        opened.on('close', leave);
        // A frame past maxPayload (or a broken one) arrives here; ws closes the connection itself.
        opened.on('error', () => opened.terminate());
      }),
    );
  };
  server.on('upgrade', onUpgrade);

  /**
   * One burst of changes to a subscriber: each new message listed is sent as `notification_received`,
   * then the counts once, however many messages changed.
   */
  async function deliver(tidings: Tidings, burst: LiveBurst, context: InboxSession['context'], send: Listener) {
    const contextKey = contextKeyText(contextKeys(context));
    const created = burst.changes.filter((change) => change.kind === 'created');
    if (created.length > 0) {
      const subscriber = await tidings.subscribers.get(burst.subscriberId);
      const workflows = new Map<string, Promise<Workflow | null>>();
      const workflowOf = (id: string) => workflows.get(id) ?? workflows.set(id, tidings.workflows.get(id)).get(id)!;
      for (const change of created) {
        const message = await change.message();
        const workflow = message?._templateId ? await workflowOf(message._templateId) : null;
        if (message && subscriber && contextKeyText(message.contextKeys) === contextKey) send('notification_received', { message: socketMessage(message, subscriber, workflow ?? undefined) });
      }
    }
    await sendCounts(tidings, burst.subscriberId, context, send);
  }

  async function sendCounts(tidings: Tidings, subscriberId: string, context: InboxSession['context'], send: Listener) {
    const [unseen] = await tidings.messages.count(subscriberId, [{ seen: false, archived: false, snoozed: false, context }]);
    send('unseen_count_changed', { unseenCount: unseen!.count });
    const counts = await unreadCounts(tidings, subscriberId, context);
    send('unread_count_changed', { unreadCount: counts.total, counts });
  }

  const sendTo = (set: Set<Listener>): Listener => (event, data) => {
    for (const listener of set) listener(event, data);
  };

  return {
    async close() {
      for (const { unwatch } of listeners.values()) unwatch();
      listeners.clear();
      server.off('upgrade', onUpgrade);
      for (const client of plain.clients) client.terminate();
      plain.close();
      io.disconnectSockets(true);
      // socket.io's close() would close the HTTP server too; the server's owner does that.
      io.engine.close();
    },
  };
}
