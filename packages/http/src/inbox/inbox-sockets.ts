import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Clock, Tidings } from '@tidings/core';
import { onLiveChanges, type LiveChange } from '../live-source.js';
import { Server as SocketIoServer } from 'socket.io';
import { WebSocketServer, type WebSocket } from 'ws';
import { socketMessage } from './inbox-shapes.js';
import { unreadCounts } from './inbox-routes.js';
import { readToken, type InboxEnvironment } from './session.js';

/** A live listener of one subscriber: a socket.io socket or a plain WebSocket. */
type Listener = (event: string, data: unknown) => void;

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
 * `unread_count_changed` with the counts by severity; a change sends the two counts. On a storage
 * that relays changes (Postgres) they come from every process. Work is done only for subscribers
 * with a connection in this process.
 */
export function attachInboxSockets(server: HttpServer, environments: readonly InboxEnvironment[], clock: Clock): InboxSockets {
  const byIdentifier = new Map(environments.map((e) => [e.applicationIdentifier, e] as const));
  const listeners = new Map<string, Set<Listener>>();
  const keyOf = (environment: InboxEnvironment, subscriberId: string) => `${environment.applicationIdentifier}\u0000${subscriberId}`;

  function join(key: string, listener: Listener): () => void {
    let set = listeners.get(key);
    if (!set) listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) listeners.delete(key);
    };
  }

  const io = new SocketIoServer(server, { cors: { origin: '*' }, serveClient: false, destroyUpgrade: false });
  io.use((socket, next) => {
    try {
      const token = (socket.handshake.auth as { token?: unknown })?.token ?? socket.handshake.query['token'];
      const session = readToken(typeof token === 'string' ? token : undefined, byIdentifier, clock.now().getTime());
      socket.data = session;
      next();
    } catch (error) {
      next(error as Error);
    }
  });
  io.on('connection', (socket) => {
    const { environment, subscriberId } = socket.data as ReturnType<typeof readToken>;
    const leave = join(keyOf(environment, subscriberId), (event, data) => socket.emit(event, data));
    socket.on('disconnect', leave);
  });

  // Plain WebSockets share the port: socket.io answers its own path, this every other upgrade.
  const plain = new WebSocketServer({ noServer: true });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/socket.io/')) return;
    let session: ReturnType<typeof readToken>;
    try {
      session = readToken(url.searchParams.get('token') ?? undefined, byIdentifier, clock.now().getTime());
    } catch {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
      return;
    }
    plain.handleUpgrade(request, socket, head, (ws: WebSocket) => {
      const leave = join(keyOf(session.environment, session.subscriberId), (event, data) => ws.send(JSON.stringify({ event, data })));
      ws.on('message', (frame) => {
        if (frame.toString() === 'ping') ws.send('pong');
      });
      ws.on('close', leave);
    });
  };
  server.on('upgrade', onUpgrade);

  async function deliver(tidings: Tidings, change: LiveChange, send: (event: string, data: unknown) => void) {
    if (change.kind === 'created') {
      const message = await change.message();
      const subscriber = message && (await tidings.subscribers.get(change.subscriberId));
      const workflow = message?._templateId ? await tidings.workflows.get(message._templateId) : null;
      if (message && subscriber) send('notification_received', { message: socketMessage(message, subscriber, workflow ?? undefined) });
    }
    await sendCounts(tidings, change.subscriberId, send);
  }

  async function sendCounts(tidings: Tidings, subscriberId: string, send: (event: string, data: unknown) => void) {
    const [unseen] = await tidings.messages.count(subscriberId, [{ seen: false, archived: false, snoozed: false }]);
    send('unseen_count_changed', { unseenCount: unseen!.count });
    const counts = await unreadCounts(tidings, subscriberId);
    send('unread_count_changed', { unreadCount: counts.total, counts });
  }

  const sendTo = (set: Set<Listener>) => (event: string, data: unknown) => {
    for (const listener of set) listener(event, data);
  };

  const detach: (() => void)[] = [];
  for (const environment of environments) {
    const { tidings } = environment;
    const report = (error: unknown) => console.error('[tidings inbox sockets]', error);
    detach.push(
      onLiveChanges(tidings, (change) => {
        // Nothing is read for a subscriber nobody is connected to in this process.
        const set = listeners.get(keyOf(environment, change.subscriberId));
        if (!set || set.size === 0) return;
        deliver(tidings, change, sendTo(set)).catch(report);
      }, () => {
        // Changes may have been missed: every subscriber connected here gets its counts again.
        const prefix = keyOf(environment, '');
        for (const [key, set] of listeners) {
          if (!key.startsWith(prefix) || set.size === 0) continue;
          sendCounts(tidings, key.slice(prefix.length), sendTo(set)).catch(report);
        }
      }),
    );
  }

  return {
    async close() {
      for (const off of detach) off();
      server.off('upgrade', onUpgrade);
      for (const client of plain.clients) client.terminate();
      plain.close();
      io.disconnectSockets(true);
      // socket.io's close() would close the HTTP server too; the server's owner does that.
      io.engine.close();
    },
  };
}
