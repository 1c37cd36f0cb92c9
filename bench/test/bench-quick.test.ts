import { expect, it } from 'vitest';
import { runBench } from '../run.js';

// Keeps the benchmarks working: the quick suite runs once. Speed is not asserted here.
it('pnpm bench --quick runs every workload and reports a figure for each', async () => {
  const lines: string[] = [];
  const rows = await runBench({ quick: true, log: (line) => lines.push(line), write: false });
  expect(rows.length).toBeGreaterThanOrEqual(9);
  for (const row of rows) expect(Number.isFinite(row.value)).toBe(true);
  expect(lines.join('\n')).toContain('| workload |');
});
