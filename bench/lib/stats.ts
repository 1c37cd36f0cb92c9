/** Median and spread (min–max as a fraction of the median) of repeated measurements. */
export function summarize(values: readonly number[]): { median: number; min: number; max: number; spread: number; runs: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  return { median, min, max, spread: median === 0 ? 0 : (max - min) / median, runs: values.length };
}

/** Runs `once` `warmup` times unmeasured, then `runs` times, and summarizes what it returns. */
export async function repeat(runs: number, warmup: number, once: (run: number) => Promise<number>) {
  for (let i = 0; i < warmup; i++) await once(-1 - i);
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await once(i));
  return summarize(values);
}

/** The value below which `p` percent of `sorted` (ascending) lies. */
export const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
