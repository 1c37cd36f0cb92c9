import type { Row } from '../workloads/types.js';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A horizontal bar chart of messages/s per backend and batch size, engine beside its baseline. */
export function throughputChart(rows: readonly Row[]): string {
  const bars = rows.filter((r) => r.unit === 'messages/s');
  const max = Math.max(1, ...bars.flatMap((r) => [r.value, r.baseline ?? 0]));
  const width = 760;
  const left = 250;
  const scale = (v: number) => Math.max(1, ((width - left - 170) * v) / max);
  const lineHeight = 46;
  const height = 40 + bars.length * lineHeight;
  const parts = bars.map((r, i) => {
    const y = 30 + i * lineHeight;
    const label = `${r.backend}, ×${r.batch ?? 1}`;
    return [
      `<text x="${left - 8}" y="${y + 14}" text-anchor="end">${escape(label)}</text>`,
      `<rect x="${left}" y="${y}" width="${scale(r.value).toFixed(1)}" height="16" fill="#2d6cdf"/>`,
      `<text x="${left + scale(r.value) + 6}" y="${y + 13}">${Math.round(r.value).toLocaleString('en')} engine</text>`,
      r.baseline === undefined ? '' : `<rect x="${left}" y="${y + 19}" width="${scale(r.baseline).toFixed(1)}" height="10" fill="#c9ced6"/>`,
      r.baseline === undefined ? '' : `<text x="${left + scale(r.baseline) + 6}" y="${y + 28}" fill="#666">${Math.round(r.baseline).toLocaleString('en')} raw baseline</text>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="18" font-weight="bold">Bulk trigger end to end, messages/s (100 events per call × subscribers per event)</text>
${parts.join('\n')}
</svg>
`;
}
