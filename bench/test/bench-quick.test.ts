import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { resultNames, runBench } from '../run.js';

// Keeps the benchmarks working: the quick suite runs once. Speed is not asserted here.
it('pnpm bench --quick runs every workload and reports a figure for each', async () => {
  const lines: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tidings-bench-'));
  const rows = await runBench({ quick: true, log: (line) => lines.push(line), dir });
  expect(rows.length).toBeGreaterThanOrEqual(9);
  for (const row of rows) expect(Number.isFinite(row.value)).toBe(true);
  expect(lines.join('\n')).toContain('| workload |');
  // A quick run writes under its own name and leaves the full run's table alone.
  expect(readFileSync(join(dir, 'quick.md'), 'utf8')).toContain('| workload |');
  expect(existsSync(join(dir, 'latest.md'))).toBe(false);
  rmSync(dir, { recursive: true, force: true });
});

it('only a full run writes latest.md; --quick and --only runs write under names of their own', () => {
  expect(resultNames({ quick: false })).toMatchObject({ table: 'latest.md', chart: 'latest.svg', peerChart: 'peer.svg' });
  expect(resultNames({ quick: true })).toMatchObject({ table: 'quick.md', chart: 'quick.svg', peerChart: 'quick-peer.svg' });
  expect(resultNames({ quick: false, only: ['peer', 'bulk'] })).toMatchObject({ table: 'only-peer-bulk.md', chart: 'only-peer-bulk.svg', peerChart: 'only-peer-bulk-peer.svg' });
  expect(resultNames({ quick: true, only: ['http'] }).table).toBe('quick-only-http.md');
  expect(resultNames({ quick: true, only: ['http'] }).json('T')).toBe('T-quick-only-http.json');
});
