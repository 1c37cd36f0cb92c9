import type { Storage } from '../storage.js';

export interface StorageUnderTest {
  /** A new, empty storage; called before every test. */
  create(): Storage | Promise<Storage>;
  /** Cleans up after a test; `storage.close()` when absent. */
  destroy?(storage: Storage): Promise<void>;
  /**
   * Reads a stored record straight from the backend (not through the port), to catch a round trip
   * that hides a bug: `rawMessage(id)` returns the message's `read`, `seen` and `createdAt` columns.
   */
  rawMessage?(storage: Storage, id: string): Promise<{ read: boolean; seen: boolean; createdAt: string } | null>;
  /**
   * Every row the backend holds of an environment, as text, read straight from its tables: an
   * erased subscriber must appear nowhere in it. Without it the suite reads every table through the port.
   */
  rawDump?(storage: Storage, env: string): Promise<string>;
}

/** Gives each suite the current storage: `get()` inside a test returns the one made for it. */
export interface SuiteContext {
  get(): Storage;
  readonly backend: StorageUnderTest;
}
