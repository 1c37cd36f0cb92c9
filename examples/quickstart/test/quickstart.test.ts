import { expect, it } from 'vitest';
import { main } from '../src/main.js';

it('quickstart — prints the feed of every subscriber, as the README shows', async () => {
  const lines: string[] = [];
  const results = await main((line) => lines.push(line));
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
