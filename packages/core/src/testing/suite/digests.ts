import { describe, expect, it } from 'vitest';
import { joinDigest, touchDigestKey } from '../../digests/digest-rules.js';
import type { Digest, DigestEvent, Storage } from '../../storage.js';
import type { SuiteContext } from '../storage-under-test.js';
import { T0, plus } from '../fixtures.js';

const opening = (key: string, id: string, overrides: Partial<Digest> = {}) => ({
  id,
  environmentId: 'env-a',
  key,
  workflowId: 'wf',
  stepIndex: 1,
  subscriberId: 'ada',
  digestKey: null,
  openedAt: T0,
  dueAt: plus(T0, 60_000),
  ...overrides,
});
const event = (n: number): DigestEvent => ({ transactionId: `tx-${n}`, notificationId: `n-${n}`, payload: { n, nested: { list: [n] } }, at: plus(T0, n) });

/** The join rule over the backend's rows, in a transaction of its own, as the engine runs it. */
const join = (s: Storage, ...args: Parameters<typeof joinDigest> extends [unknown, ...infer Rest] ? Rest : never) => s.transaction((tx) => joinDigest(tx.digests, ...args));
const touch = (s: Storage, ...args: Parameters<typeof touchDigestKey> extends [unknown, ...infer Rest] ? Rest : never) => s.transaction((tx) => touchDigestKey(tx.digests, ...args));

export function digestsSuite({ get }: SuiteContext): void {
  describe('digests', () => {
    it('joinDigest — the first join opens, later ones append in order; moveDueAt moves the due time', async () => {
      const s = get();
      const first = await join(s, 'env-a', opening('k', 'd1'), event(1));
      expect(first.opened).toBe(true);
      expect((await s.digests.get('env-a', 'd1'))!.events).toEqual([event(1)]);
      expect(first.digest).toMatchObject({ id: 'd1', status: 'open', eventCount: 1 });
      const second = await join(s, 'env-a', opening('k', 'ignored'), event(2));
      expect(second).toMatchObject({ opened: false, digest: { id: 'd1', dueAt: plus(T0, 60_000), eventCount: 2 } });
      const third = await join(s, 'env-a', opening('k', 'ignored'), event(3), plus(T0, 90_000));
      expect(third.digest.dueAt).toBe(plus(T0, 90_000));
      expect((await s.digests.get('env-a', 'd1'))!.events).toEqual([event(1), event(2), event(3)]);
      // moveDueAt only ever moves the due time later.
      expect((await join(s, 'env-a', opening('k', 'ignored'), event(4), plus(T0, 70_000))).digest.dueAt).toBe(plus(T0, 90_000));
    });

    it('joinDigest — keyed by the event: joining the same transactionId again changes nothing and answers as the first time', async () => {
      const s = get();
      await join(s, 'env-a', opening('k', 'd1'), event(1));
      await join(s, 'env-a', opening('k', 'x'), event(2));
      expect(await join(s, 'env-a', opening('k', 'y'), event(1))).toMatchObject({ opened: true, digest: { id: 'd1', eventCount: 2 } });
      expect(await join(s, 'env-a', opening('k', 'y'), event(2), plus(T0, 99_000))).toMatchObject({ opened: false, digest: { id: 'd1', eventCount: 2, dueAt: plus(T0, 60_000) } });
      expect((await s.digests.get('env-a', 'd1'))!.events.map((e) => e.transactionId)).toEqual(['tx-1', 'tx-2']);
      // Once flushed, a re-run join of an event still finds its (closed) digest instead of opening one.
      await s.digests.close('env-a', 'd1');
      expect(await join(s, 'env-a', opening('k', 'z'), event(2))).toMatchObject({ opened: false, digest: { id: 'd1', status: 'closed' } });
      expect(await s.digests.listOpen('env-a')).toEqual([]);
      // The same transaction under another key (another subscriber or digest key) is another event.
      expect((await join(s, 'env-a', opening('other', 'd2'), event(1))).opened).toBe(true);
    });

    it('joinDigest — concurrent joins of one key open one digest and lose no event', async () => {
      const s = get();
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => join(s, 'env-a', opening('race', `d-${i}`), event(i))));
      expect(results.filter((r) => r.opened)).toHaveLength(1);
      const open = await s.digests.listOpen('env-a');
      expect(open).toHaveLength(1);
      expect(open[0]!.events.map((e) => e.transactionId).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `tx-${i}`).sort());
    });

    it('digests.close — idempotent; a closed digest takes no joins, the next join opens a new one', async () => {
      const s = get();
      await join(s, 'env-a', opening('k', 'd1'), event(1));
      expect((await s.digests.close('env-a', 'd1'))!.status).toBe('closed');
      expect((await s.digests.close('env-a', 'd1'))!.events).toEqual([event(1)]);
      expect(await s.digests.close('env-a', 'missing')).toBeNull();
      const next = await join(s, 'env-a', opening('k', 'd2'), event(2));
      expect(next).toMatchObject({ opened: true, digest: { id: 'd2', eventCount: 1 } });
      expect(await s.digests.listOpen('env-a')).toHaveLength(1);
    });

    it('touchDigestKey — returns the previous event time of a key and keeps the latest; the same event again answers the same', async () => {
      const s = get();
      expect(await touch(s, 'env-a', 'k', plus(T0, 10), 'tx-1')).toBeNull();
      expect(await touch(s, 'env-a', 'k', plus(T0, 10), 'tx-1')).toBeNull();
      expect(await touch(s, 'env-a', 'k', plus(T0, 20), 'tx-2')).toBe(plus(T0, 10));
      expect(await touch(s, 'env-a', 'k', plus(T0, 20), 'tx-2')).toBe(plus(T0, 10));
      expect(await touch(s, 'env-a', 'k', plus(T0, 5), 'tx-3')).toBe(plus(T0, 20));
      expect(await touch(s, 'env-a', 'k', plus(T0, 30), 'tx-4')).toBe(plus(T0, 20));
      expect(await touch(s, 'env-b', 'k', T0, 'tx-1')).toBeNull();
    });

    it('digests.removeTransaction — drops the trigger’s events, deletes emptied digests and names them', async () => {
      const s = get();
      await join(s, 'env-a', opening('a', 'da'), event(1));
      await join(s, 'env-a', opening('a', 'x'), event(2));
      await join(s, 'env-a', opening('b', 'db'), event(1));
      const { updated, deleted } = await s.digests.removeTransaction('env-a', 'tx-1');
      expect(deleted).toEqual(['db']);
      expect(updated.map((d) => [d.id, d.events.map((e) => e.transactionId)])).toEqual([['da', ['tx-2']]]);
      expect(await s.digests.get('env-a', 'db')).toBeNull();
      expect((await s.digests.listOpen('env-a', { transactionId: 'tx-2' })).map((d) => d.id)).toEqual(['da']);
    });

    it('digests.insertOpen — a second open of a key that has one open is refused and stores nothing; a removed first event hands `first` to the next', async () => {
      const s = get();
      await s.transaction((tx) => tx.digests.insertOpen('env-a', opening('k', 'd1'), event(1)));
      await expect(s.transaction((tx) => tx.digests.insertOpen('env-a', opening('k', 'd2'), event(2)))).rejects.toThrow();
      expect(await s.digests.get('env-a', 'd2')).toBeNull();
      expect(await s.digests.membership('env-a', 'k', 'tx-2')).toBeNull();
      expect(await s.digests.openHead('env-a', 'k')).toMatchObject({ id: 'd1', eventCount: 1 });
      await join(s, 'env-a', opening('k', 'x'), event(3));
      expect(await s.digests.membership('env-a', 'k', 'tx-3')).toEqual({ digestId: 'd1', first: false });
      await s.digests.removeTransaction('env-a', 'tx-1');
      expect(await s.digests.membership('env-a', 'k', 'tx-3')).toEqual({ digestId: 'd1', first: true });
      expect(await s.digests.head('env-a', 'd1')).toMatchObject({ id: 'd1', eventCount: 1 });
      expect(await s.digests.countOpen('env-a')).toBe(1);
    });

    it('digests — listOpen filters and sorts by due time; environments are isolated', async () => {
      const s = get();
      await join(s, 'env-a', opening('late', 'd-late', { dueAt: plus(T0, 9_000), subscriberId: 'bob' }), event(1));
      await join(s, 'env-a', opening('early', 'd-early', { dueAt: plus(T0, 1_000) }), event(2));
      await join(s, 'env-b', opening('early', 'd-other', { environmentId: 'env-b' }), event(3));
      expect((await s.digests.listOpen('env-a')).map((d) => d.id)).toEqual(['d-early', 'd-late']);
      expect((await s.digests.listOpen('env-a', { subscriberId: 'bob' })).map((d) => d.id)).toEqual(['d-late']);
      expect(await s.digests.get('env-b', 'd-early')).toBeNull();
      expect((await join(s, 'env-b', opening('early', 'x', { environmentId: 'env-b' }), event(4))).opened).toBe(false);
    });
  });
}
