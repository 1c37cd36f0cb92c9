import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary folder, removed at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `tidings-bench-${prefix}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let counter = 0;
export const freshName = (prefix: string) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
