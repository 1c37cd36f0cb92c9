import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders `tempDir` made, removed by one exit listener (one each made a full run warn of a leak). */
const made = new Set<string>();

/** A fresh temporary folder, removed at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `tidings-bench-${prefix}-`));
  if (made.size === 0) process.once('exit', () => made.forEach((folder) => rmSync(folder, { recursive: true, force: true })));
  made.add(dir);
  return dir;
}

let counter = 0;
export const freshName = (prefix: string) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
