import { expect, it } from 'vitest';
import { memoryStorage } from '../src/index.js';

it('records go in and come out as copies: changing a document given or returned changes nothing stored; with copyRecords false they are shared', async () => {
  const doc = () => ({ list: [1, { deep: 'yes' }] as unknown[] });
  const copying = memoryStorage();
  const input = { key: 'k', doc: doc() };
  await copying.records.put('env-a', 't', [input]);
  input.doc.list.push(2);
  const [read] = await copying.records.get('env-a', 't', ['k']);
  expect(read!.doc).toEqual(doc());
  (read!.doc as ReturnType<typeof doc>).list.length = 0;
  expect((await copying.records.find('env-a', 't', {}))[0]!.doc).toEqual(doc());

  const sharing = memoryStorage({ copyRecords: false });
  const shared = { key: 'k', doc: doc() };
  await sharing.records.put('env-a', 't', [shared]);
  expect((await sharing.records.get('env-a', 't', ['k']))[0]!.doc).toBe(shared.doc);
});
