import type { Row } from '../workloads/types.js';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const group = (r: Row) => r.backend.split(' ')[0]!;

/**
 * A horizontal bar chart of messages/s per backend and batch size, each figure beside its baseline.
 * Bars are scaled per backend (memory runs an order of magnitude above SQL), so compare within one.
 */
export function throughputChart(rows: readonly Row[]): string {
  const bars = rows.filter((r) => r.unit === 'messages/s');
  const maxOf = new Map<string, number>();
  for (const r of bars) maxOf.set(group(r), Math.max(maxOf.get(group(r)) ?? 1, r.value, r.baseline ?? 0));
  const width = 840;
  const left = 300;
  const lineHeight = 46;
  const height = 40 + bars.length * lineHeight;
  const parts = bars.map((r, i) => {
    const y = 30 + i * lineHeight;
    const scale = (v: number) => Math.max(1, ((width - left - 190) * v) / maxOf.get(group(r))!);
    const label = `${r.backend}, ×${r.batch ?? 1}`;
    const what = r.backend.includes('floor') ? "floor: the engine's rows, no engine code" : r.backend.includes('pure work') ? 'ceiling: pure work, no storage' : 'engine';
    return [
      `<text x="${left - 8}" y="${y + 14}" text-anchor="end">${escape(label)}</text>`,
      `<rect x="${left}" y="${y}" width="${scale(r.value).toFixed(1)}" height="16" fill="#2d6cdf"/>`,
      `<text x="${left + scale(r.value) + 6}" y="${y + 13}">${Math.round(r.value).toLocaleString('en')} ${what}</text>`,
      r.baseline === undefined ? '' : `<rect x="${left}" y="${y + 19}" width="${scale(r.baseline).toFixed(1)}" height="10" fill="#c9ced6"/>`,
      r.baseline === undefined ? '' : `<text x="${left + scale(r.baseline) + 6}" y="${y + 28}" fill="#666">${Math.round(r.baseline).toLocaleString('en')} raw baseline</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="18" font-weight="bold">Bulk trigger end to end, messages/s (100 events per call × subscribers per event; bars scaled per backend)</text>
${parts.join('\n')}
</svg>
`;
}
