import { describe, expect, it } from 'vitest';
import { isTidingsError } from '../../errors.js';
import type { SuiteContext } from '../storage-under-test.js';
import { createTidings } from '../../engine/create-tidings.js';
import { manualClock } from '../../clock.js';
import { integrationRecord, T0, workflowRecord } from '../fixtures.js';

export function catalogSuite({ get }: SuiteContext): void {
  describe('workflows', () => {
    it('workflows.upsert — stores the workflow and finds it by _id, identifier and slug', async () => {
      const s = get();
      const wf = workflowRecord('env-a', { identifier: 'welcome', slug: 'welcome-slug', tags: ['a'], preferenceSettings: { email: false } });
      await s.workflows.upsert('env-a', wf);
      for (const ref of [wf._id, 'welcome', 'welcome-slug']) expect(await s.workflows.find('env-a', ref)).toEqual(wf);
      expect(await s.workflows.find('env-a', 'nope')).toBeNull();
    });

    it('workflows.upsert — replaces by _id and refuses a second workflow with the same identifier', async () => {
      const s = get();
      const wf = workflowRecord('env-a', { identifier: 'dup' });
      await s.workflows.upsert('env-a', wf);
      await s.workflows.upsert('env-a', { ...wf, name: 'Renamed' });
      expect((await s.workflows.find('env-a', wf._id))?.name).toBe('Renamed');
      const other = workflowRecord('env-a', { identifier: 'dup' });
      await expect(s.workflows.upsert('env-a', other)).rejects.toSatisfy((e) => isTidingsError(e, 'conflict'));
      expect(await s.workflows.list('env-a')).toHaveLength(1);
    });

    it('workflows — another environment sees nothing and may reuse the identifier', async () => {
      const s = get();
      const wf = workflowRecord('env-a', { identifier: 'shared' });
      await s.workflows.upsert('env-a', wf);
      expect(await s.workflows.find('env-b', wf._id)).toBeNull();
      expect(await s.workflows.find('env-b', 'shared')).toBeNull();
      expect(await s.workflows.list('env-b')).toEqual([]);
      expect(await s.workflows.getMany('env-b', [wf._id])).toEqual([]);
      await s.workflows.upsert('env-b', workflowRecord('env-b', { identifier: 'shared' }));
      expect(await s.workflows.delete('env-b', wf._id)).toBe(false);
      expect(await s.workflows.find('env-a', wf._id)).not.toBeNull();
    });

    it('workflows.list / getMany / delete — oldest first, missing ids left out, false when absent', async () => {
      const s = get();
      const a = workflowRecord('env-a', { createdAt: '2026-01-01T00:00:00.000Z' });
      const b = workflowRecord('env-a', { createdAt: '2026-03-03T00:00:00.000Z' });
      await s.workflows.upsert('env-a', b);
      await s.workflows.upsert('env-a', a);
      expect((await s.workflows.list('env-a')).map((w) => w._id)).toEqual([a._id, b._id]);
      expect((await s.workflows.getMany('env-a', [b._id, 'missing'])).map((w) => w._id)).toEqual([b._id]);
      expect(await s.workflows.delete('env-a', a._id)).toBe(true);
      expect(await s.workflows.delete('env-a', a._id)).toBe(false);
      expect(await s.workflows.list('env-a')).toHaveLength(1);
    });
  });

  describe('tenants', () => {
    it('tenants.upsert / get — stores by identifier, replaces, null when absent or in another environment', async () => {
      const s = get();
      const tenant = { _id: 't1', identifier: 'acme', name: 'Acme', data: { plan: 'pro' }, _environmentId: 'env-a', createdAt: T0, updatedAt: T0 };
      await s.tenants.upsert('env-a', tenant);
      await s.tenants.upsert('env-a', { ...tenant, name: 'Acme Inc' });
      expect(await s.tenants.get('env-a', 'acme')).toEqual({ ...tenant, name: 'Acme Inc' });
      expect(await s.tenants.get('env-b', 'acme')).toBeNull();
      expect(await s.tenants.get('env-a', 'other')).toBeNull();
    });
  });

  describe('integrations', () => {
    it('integrations — one primary per channel (the engine’s rule): a new primary clears the others of its channel only', async () => {
      const tidings = createTidings({ storage: get(), environmentId: 'env-a' });
      const first = await tidings.integrations.upsert({ name: 'First', providerId: 'smtp', channel: 'email', primary: true });
      const sms = await tidings.integrations.upsert({ name: 'Sms', providerId: 'twilio', channel: 'sms', primary: true });
      const second = await tidings.integrations.upsert({ name: 'Second', providerId: 'smtp', channel: 'email', primary: true });
      const primaries = async () => (await get().integrations.list('env-a')).filter((i) => i.primary).map((i) => i._id).sort();
      expect(await primaries()).toEqual([sms._id, second._id].sort());
      await tidings.integrations.setPrimary(first._id);
      expect(await primaries()).toEqual([sms._id, first._id].sort());
    });

    it('integrations.upsert (engine) — the same identifier at every start replaces one integration (credentials whole, _id and createdAt kept); none given adds another', async () => {
      const clock = manualClock(T0);
      const boot = (credentials: Record<string, string>) =>
        createTidings({ storage: get(), environmentId: 'env-a', clock }).integrations.upsert({ identifier: 'mail', name: 'Mail', providerId: 'nodemailer', channel: 'email', primary: true, credentials });
      const first = await boot({ host: 'smtp.one.test', user: 'me' });
      clock.set('2026-03-03T00:00:00.000Z');
      const second = await boot({ host: 'smtp.two.test' });
      const stored = await get().integrations.list('env-a');
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ _id: first._id, identifier: 'mail', createdAt: first.createdAt, updatedAt: '2026-03-03T00:00:00.000Z', credentials: { host: 'smtp.two.test' }, primary: true });
      expect(stored[0]!.credentials).not.toHaveProperty('user');
      expect(second._id).toBe(first._id);
      const tidings = createTidings({ storage: get(), environmentId: 'env-a', clock });
      const a = await tidings.integrations.upsert({ providerId: 'console', channel: 'sms' });
      const b = await tidings.integrations.upsert({ providerId: 'console', channel: 'sms' });
      expect(a._id).not.toBe(b._id);
      expect(await get().integrations.list('env-a', { channel: 'sms' })).toHaveLength(2);
    });

    it('integrations.upsert (engine) — credentials take `port` as a number or its digits and flags as booleans or "true"/"false", stored as text and booleans; a bad one is refused by field, nothing stored', async () => {
      const tidings = createTidings({ storage: get(), environmentId: 'env-a' });
      await tidings.integrations.upsert({ identifier: 'a', providerId: 'nodemailer', channel: 'email', credentials: { host: 'h', port: 465, secure: 'true', requireTls: 'false' } });
      await tidings.integrations.upsert({ identifier: 'b', providerId: 'nodemailer', channel: 'email', credentials: { host: 'h', port: '587', secure: false, ignoreTls: true } });
      const stored = new Map((await get().integrations.list('env-a')).map((i) => [i.identifier, i.credentials]));
      expect(stored.get('a')).toEqual({ host: 'h', port: '465', secure: true, requireTls: false });
      expect(stored.get('b')).toEqual({ host: 'h', port: '587', secure: false, ignoreTls: true });
      for (const [credentials, field] of [[{ port: 'smtp' }, 'credentials.port'], [{ port: 70_000 }, 'credentials.port'], [{ secure: 'yes' }, 'credentials.secure']] as const) {
        await expect(tidings.integrations.upsert({ identifier: 'c', providerId: 'nodemailer', channel: 'email', credentials: credentials as unknown as Record<string, never> })).rejects.toSatisfy(
          (e) => isTidingsError(e, 'validation_failed') && e.issues.some((issue) => issue.path === field),
        );
      }
      expect(await get().integrations.list('env-a')).toHaveLength(2);
    });

    it('integrations.upsert — stores the record as given, replacing the one with its _id', async () => {
      const s = get();
      const record = integrationRecord('env-a', { channel: 'email', primary: true });
      await s.integrations.upsert('env-a', record);
      await s.integrations.upsert('env-a', { ...record, name: 'Renamed', primary: false });
      expect(await s.integrations.list('env-a')).toEqual([{ ...record, name: 'Renamed', primary: false }]);
    });

    it('integrations.list — filters by active and channel, never crosses environments', async () => {
      const s = get();
      const active = integrationRecord('env-a', { channel: 'chat', credentials: { webhookUrl: 'http://x', secure: true } });
      const inactive = integrationRecord('env-a', { active: false });
      await s.integrations.upsert('env-a', active);
      await s.integrations.upsert('env-a', inactive);
      await s.integrations.upsert('env-b', integrationRecord('env-b'));
      expect(await s.integrations.list('env-a', { active: true })).toEqual([active]);
      expect((await s.integrations.list('env-a', { channel: 'email' })).map((i) => i._id)).toEqual([inactive._id]);
      expect(await s.integrations.list('env-a')).toHaveLength(2);
      expect(await s.integrations.get('env-b', active._id)).toBeNull();
    });

    it('integrations.upsert — refuses a duplicate identifier', async () => {
      const s = get();
      await s.integrations.upsert('env-a', integrationRecord('env-a', { identifier: 'same' }));
      await expect(s.integrations.upsert('env-a', integrationRecord('env-a', { identifier: 'same' }))).rejects.toSatisfy((e) =>
        isTidingsError(e, 'conflict'),
      );
    });
  });
}
