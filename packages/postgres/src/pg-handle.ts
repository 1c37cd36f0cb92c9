/**
 * The parts of a pg `Pool` Tidings uses. The public types name these rather than pg's own, so a
 * TypeScript app that passes its pool (or only a connection string) needs no @types/pg; a `pg.Pool`
 * fits them as it is.
 */
export interface PgPool {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'connect', listener: (client: PgPoolClient) => void): unknown;
}

/** The parts of a pg `PoolClient` Tidings uses. */
export interface PgPoolClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
}
