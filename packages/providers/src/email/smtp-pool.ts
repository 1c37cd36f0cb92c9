import type { Credentials } from '@tidings/core';
import nodemailer, { type Transporter } from 'nodemailer';

/** How connections to SMTP servers are kept: see `SmtpProviderOptions.pool`. */
export interface SmtpPoolOptions {
  /** Connections open at once to one server and login. @default 5 */
  readonly maxConnections?: number;
  /** Messages one connection sends before it is replaced. @default 100 */
  readonly maxMessages?: number;
  /** How long a pool stays open without a send, in ms. @default 1_000 */
  readonly idleMs?: number;
}

interface Pool {
  readonly transport: Transporter;
  inFlight: number;
  timer: NodeJS.Timeout | null;
}

/** nodemailer's connection options from an integration's credentials. */
function connectionOf(credentials: Credentials, timeout: number) {
  return {
    host: credentials.host,
    port: credentials.port ? Number(credentials.port) : 587,
    secure: credentials.secure ?? false,
    ...(credentials.requireTls !== undefined && { requireTLS: credentials.requireTls }),
    ...(credentials.ignoreTls !== undefined && { ignoreTLS: credentials.ignoreTls }),
    ...(credentials.tlsOptions !== undefined && { tls: credentials.tlsOptions }),
    ...(credentials.user && { auth: { user: credentials.user, pass: credentials.password ?? '' } }),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  };
}

/**
 * SMTP transports by server and login: pooled ones (nodemailer's `pool`) are kept between sends and
 * closed after `idleMs` without one, or by `close()`; without pooling, each send has a transport of
 * its own, closed after it.
 */
export function smtpTransports(timeout: number, pool: SmtpPoolOptions | false) {
  const pools = new Map<string, Pool>();
  const idleMs = pool === false ? 0 : (pool.idleMs ?? 1_000);

  const drop = (key: string, entry: Pool) => {
    if (entry.timer) clearTimeout(entry.timer);
    if (pools.get(key) === entry) pools.delete(key);
    entry.transport.close();
  };

  /** Runs `send` on a transport for these credentials. */
  async function withTransport<T>(credentials: Credentials, send: (transport: Transporter) => Promise<T>): Promise<T> {
    const connection = connectionOf(credentials, timeout);
    if (pool === false) {
      const transport = nodemailer.createTransport(connection);
      try {
        return await send(transport);
      } finally {
        transport.close();
      }
    }
    const key = JSON.stringify(connection);
    let entry = pools.get(key);
    if (!entry) {
      const transport = nodemailer.createTransport({ ...connection, pool: true, maxConnections: pool.maxConnections ?? 5, maxMessages: pool.maxMessages ?? 100 });
      const made: Pool = { transport, inFlight: 0, timer: null };
      // A pool whose connection broke is dropped: the next send opens a new one.
      transport.on('error', () => drop(key, made));
      pools.set(key, (entry = made));
    }
    const held = entry;
    if (held.timer) clearTimeout(held.timer);
    held.timer = null;
    held.inFlight++;
    try {
      return await send(held.transport);
    } finally {
      held.inFlight--;
      if (held.inFlight === 0 && pools.get(key) === held) {
        held.timer = setTimeout(() => drop(key, held), idleMs);
        held.timer.unref();
      }
    }
  }

  return {
    withTransport,
    /** Closes every pool now. */
    async close(): Promise<void> {
      for (const [key, entry] of [...pools]) drop(key, entry);
    },
  };
}
