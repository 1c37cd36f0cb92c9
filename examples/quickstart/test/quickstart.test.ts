import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { main } from '../src/main.js';

it('quickstart — prints the feed of every subscriber, as the README shows', async () => {
  const lines: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tidings-quickstart-'));
  const results = await main((line) => lines.push(line), join(dir, 'quickstart.db'));
  rmSync(dir, { recursive: true, force: true });
  expect(results.map((r) => r.status)).toEqual(['processed', 'processed', 'processed']);
  expect(lines).toEqual([
    'triggered: processed, processed, processed',
    'feed of ada (2 unseen):',
    '  • Alan commented on “Machines” → /posts/2',
    '  • Grace commented on “Compilers” → /posts/1',
    'feed of grace (1 unseen):',
    '  • Ada commented on “Engines” → /posts/3',
  ]);
});
