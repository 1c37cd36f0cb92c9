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

/**
 * The peer comparison: messages/s stored end to end by the BullMQ pipeline and by Tidings with its
 * default options, for each recipients-per-event size, on one scale per size.
 */
export function peerChart(rows: readonly Row[]): string {
  const bars = rows.filter((r) => r.unit === 'messages/s' && (r.backend.startsWith('peer') || r.backend.endsWith('(default)')));
  const width = 840;
  const left = 250;
  const lineHeight = 26;
  const sizes = [...new Set(bars.map((r) => r.batch ?? 1))];
  const height = 40 + bars.length * lineHeight + sizes.length * 22;
  const parts: string[] = [];
  let y = 30;
  for (const size of sizes) {
    const group = bars.filter((r) => (r.batch ?? 1) === size);
    const max = Math.max(...group.map((r) => r.value));
    parts.push(`<text x="12" y="${y + 12}" font-weight="bold">100 events × ${size} subscriber${size > 1 ? 's' : ''} each</text>`);
    y += 22;
    for (const r of group) {
      const w = Math.max(1, ((width - left - 200) * r.value) / max);
      const peer = r.backend.startsWith('peer');
      const label = peer ? (r.backend.includes('redis') ? 'BullMQ on Redis → Postgres' : 'BullMQ on Postgres → Postgres') : `Tidings, ${r.backend.split(' ')[0] === 'sqlite' ? 'SQLite' : 'Postgres'}`;
      const note = r.ratio !== undefined && r.versus !== undefined ? ` (${r.ratio.toFixed(1)}× the peer)` : '';
      parts.push(`<text x="${left - 8}" y="${y + 13}" text-anchor="end">${escape(label)}</text>`);
      parts.push(`<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="18" fill="${peer ? '#c9ced6' : '#2d6cdf'}"/>`);
      parts.push(`<text x="${left + w + 6}" y="${y + 13}">${Math.round(r.value).toLocaleString('en')}${escape(note)}</text>`);
      y += lineHeight;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="18" font-weight="bold">Messages stored per second, end to end: Tidings (default options) vs a BullMQ pipeline, same run</text>
${parts.join('\n')}
</svg>
`;
}
