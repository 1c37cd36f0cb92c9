import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a server, for outage tests: `cut()` drops every connection and refuses new
 * ones, `restore()` serves again on the same port, `blackHole()` accepts connections and never
 * answers (a database that hangs), `forward()` goes back to normal.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let mode: 'forward' | 'black-hole' = 'forward';
  let server: Server | null = null;
  let port = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        track(client);
        if (mode === 'black-hole') return;
        const upstream = connect(target.port, target.host);
        track(upstream);
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  await start();
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    get port() {
      return port;
    },
    async cut() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        dropAll();
      });
    },
    restore: start,
    blackHole() {
      mode = 'black-hole';
      dropAll();
    },
    forward() {
      mode = 'forward';
    },
    async close() {
      dropAll();
      await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
    },
  };
}
