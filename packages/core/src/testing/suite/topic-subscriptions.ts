import { describe, expect, it } from 'vitest';
import { manualClock } from '../../clock.js';
import type { Provider, ProviderMessage } from '../../delivery/provider.js';
import { createTidings } from '../../engine/create-tidings.js';
import { isTidingsError } from '../../errors.js';
import type { SuiteContext } from '../storage-under-test.js';

/** Topic subscriptions and their preferences on every backend: records only, no adapter code. */
export function topicSubscriptionsSuite({ get }: SuiteContext): void {
  describe('topic subscriptions over this storage', () => {
    async function engine(options: { fanoutChunk?: number; inlineLimit?: number } = {}) {
      const sent: ProviderMessage[] = [];
      const mail: Provider = { id: 'mailer', channel: 'email', send: async (message) => (sent.push(message), { id: `pm-${sent.length}` }) };
      const tidings = createTidings({ storage: get(), clock: manualClock('2026-05-04T08:00:00.000Z'), environmentId: 'subs', providers: [mail], ...options });
      await tidings.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'mailer', channel: 'email', active: true, primary: true });
      const digest = await tidings.workflows.upsert({
        name: 'Weekly digest',
        triggers: [{ identifier: 'digest' }],
        tags: ['news'],
        steps: [{ template: { type: 'in_app', content: 'Digest {{ payload.n }}' } }, { template: { type: 'email', subject: 'Digest', content: 'Digest {{ payload.n }}' } }],
      });
      const replies = await tidings.workflows.upsert({ name: 'Replies', triggers: [{ identifier: 'replies' }], tags: ['social'], steps: [{ template: { type: 'in_app', content: 'Reply {{ payload.n }}' } }] });
      await tidings.workflows.upsert({ name: 'Security', triggers: [{ identifier: 'security' }], tags: ['news'], critical: true, steps: [{ template: { type: 'in_app', content: 'Login' } }] });
      for (const subscriberId of ['ada', 'bob', 'cy']) await tidings.subscribers.upsert({ subscriberId, email: `${subscriberId}@x.test` });
      return { tidings, sent, digest, replies };
    }

    it('create, get, list, update and delete — the membership with an identifier (Novu’s default when none is given); subscribing again as the same identifier changes nothing', async () => {
      const { tidings, digest } = await engine();
      const created = await tidings.topics.subscriptions.create('ada', 'releases', { topicName: 'Releases', name: 'Release notes', preferences: ['digest'] });
      expect(created).toMatchObject({ identifier: 'tk_releases:si_ada', name: 'Release notes', topicKey: 'releases', subscriberId: 'ada' });
      expect(created.preferences).toEqual([{ workflowId: digest._id, workflowIdentifier: 'digest', enabled: true, channels: { in_app: true, email: true }, stored: true }]);
      // The topic was made, named, and ada is its member.
      expect(await tidings.topics.get('releases')).toMatchObject({ key: 'releases', name: 'Releases' });
      expect(await tidings.topics.memberPage('releases', { limit: 10 })).toEqual(['ada']);
      expect(await tidings.topics.subscriptions.create('ada', 'releases', { identifier: 'tk_releases:si_ada' })).toEqual(created);
      expect(await tidings.topics.subscriptions.get('ada', 'releases')).toEqual(created);
      expect(await tidings.topics.subscriptions.list('ada', 'releases')).toEqual([created]);
      expect(await tidings.topics.subscriptions.get('bob', 'releases')).toBeNull();
      expect(await tidings.topics.subscriptions.list('bob', 'releases')).toEqual([]);
      expect(await tidings.topics.subscriptions.get('ada', 'releases', { identifier: 'another' })).toBeNull();

      const renamed = await tidings.topics.subscriptions.update('ada', 'releases', 'tk_releases:si_ada', { name: 'Notes', preferences: [] });
      expect(renamed).toMatchObject({ name: 'Notes', preferences: [] });
      await tidings.topics.subscriptions.delete('ada', 'releases', 'tk_releases:si_ada');
      expect(await tidings.topics.subscriptions.get('ada', 'releases')).toBeNull();
      expect(await tidings.topics.memberPage('releases', { limit: 10 })).toEqual([]);
      await expect(tidings.topics.subscriptions.delete('ada', 'releases', 'tk_releases:si_ada')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    });

    it('one subscription per topic: another identifier, or one the subscriber uses for another topic, is a conflict; a plain member’s subscription has the default identifier', async () => {
      const { tidings } = await engine();
      await tidings.topics.subscriptions.create('ada', 'releases', { identifier: 'my-releases' });
      await expect(tidings.topics.subscriptions.create('ada', 'releases')).rejects.toSatisfy((e) => isTidingsError(e, 'conflict'));
      await expect(tidings.topics.subscriptions.create('ada', 'alerts', { identifier: 'my-releases' })).rejects.toSatisfy((e) => isTidingsError(e, 'conflict'));
      expect(await tidings.topics.subscriptions.get('ada', 'alerts')).toBeNull();
      // Another subscriber may use the same identifier: each one's are their own.
      expect((await tidings.topics.subscriptions.create('bob', 'releases', { identifier: 'my-releases' })).subscriberId).toBe('bob');
      await tidings.topics.addSubscribers('alerts', ['cy']);
      expect(await tidings.topics.subscriptions.get('cy', 'alerts')).toMatchObject({ identifier: 'tk_alerts:si_cy', preferences: [] });
      await expect(tidings.topics.subscriptions.create('nobody', 'alerts')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    });

    it('preferences from filters — a workflow by identifier, one turned off, a group by tag; unknown workflows and critical ones are left out; a read lists the workflows it asks for', async () => {
      const { tidings, digest, replies } = await engine();
      const created = await tidings.topics.subscriptions.create('ada', 'releases', { preferences: [{ workflowId: 'replies', enabled: false }, { filter: { tags: ['news'] } }, 'no-such-workflow'] });
      expect(created.preferences.map((p) => [p.workflowIdentifier, p.enabled])).toEqual([
        ['digest', true],
        ['replies', false],
      ]);
      const cy = await tidings.topics.subscriptions.create('cy', 'releases');
      expect(cy.preferences).toEqual([]);
      const asked = await tidings.topics.subscriptions.get('cy', 'releases', { workflowIds: [replies._id], tags: ['news'] });
      expect(asked!.preferences).toEqual([
        { workflowId: digest._id, workflowIdentifier: 'digest', enabled: true, channels: { in_app: true, email: true }, stored: false },
        { workflowId: replies._id, workflowIdentifier: 'replies', enabled: true, channels: { in_app: true }, stored: false },
      ]);
    });

    it('updatePreference — on and off as a whole and channel by channel; refused input names its field and changes nothing; another subscriber’s subscription is not found', async () => {
      const { tidings } = await engine();
      await tidings.topics.subscriptions.create('ada', 'releases', { identifier: 'ada-releases' });
      const off = await tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'digest', { channels: { email: false } });
      expect(off.preference).toMatchObject({ workflowIdentifier: 'digest', enabled: true, channels: { in_app: true, email: false }, stored: true });
      expect(off.subscription.preferences).toEqual([off.preference]);
      const disabled = await tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'digest', { enabled: false });
      expect(disabled.preference).toMatchObject({ enabled: false, channels: { in_app: false, email: false } });

      const refusals: [Parameters<typeof tidings.topics.subscriptions.updatePreference>[3], string][] = [
        [{ enabled: 'no' as never }, 'enabled'],
        [{ channels: { fax: true } as never }, 'channels.fax'],
        [{}, 'enabled'],
        [{ enabled: true, condition: { '==': [1, 1] } } as never, 'condition'],
      ];
      for (const [input, path] of refusals) {
        const refused = await tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'digest', input).catch((e: unknown) => e);
        expect(isTidingsError(refused, 'validation_failed'), String(refused)).toBe(true);
        expect((refused as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain(path);
      }
      const critical = await tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'security', { enabled: false }).catch((e: unknown) => e);
      expect(isTidingsError(critical, 'validation_failed') && critical.issues[0]!.path).toBe('workflowId');
      await expect(tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'no-such-workflow', { enabled: false })).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
      await expect(tidings.topics.subscriptions.updatePreference('bob', 'ada-releases', 'digest', { enabled: true })).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
      expect((await tidings.topics.subscriptions.get('ada', 'releases'))!.preferences).toEqual([disabled.preference]);

      // A plain member's default identifier finds their membership, which gets a record.
      await tidings.topics.addSubscribers('releases', ['bob']);
      const bob = await tidings.topics.subscriptions.updatePreference('bob', 'tk_releases:si_bob', 'replies', { enabled: false });
      expect(bob.subscription).toMatchObject({ identifier: 'tk_releases:si_bob', preferences: [{ workflowIdentifier: 'replies', enabled: false }] });

      // A batch applies whole or not at all.
      const batch = await tidings.topics.subscriptions.updatePreferences('ada', [
        { subscriptionIdentifier: 'ada-releases', workflowId: 'digest', enabled: true },
        { subscriptionIdentifier: 'ada-releases', workflowId: 'replies', enabled: false },
      ]);
      expect(batch.map((b) => [b.preference.workflowIdentifier, b.preference.enabled])).toEqual([
        ['digest', true],
        ['replies', false],
      ]);
      const failed = await tidings.topics.subscriptions.updatePreferences('ada', [
        { subscriptionIdentifier: 'ada-releases', workflowId: 'digest', enabled: false },
        { subscriptionIdentifier: 'ada-releases', workflowId: 'security', enabled: false },
      ]).catch((e: unknown) => e);
      expect(isTidingsError(failed, 'validation_failed') && failed.issues[0]!.path).toBe('preferences[1].workflowId');
      expect((await tidings.topics.subscriptions.get('ada', 'releases'))!.preferences.find((p) => p.workflowIdentifier === 'digest')!.enabled).toBe(true);
    });

    it('a trigger to the topic skips what a subscription turned off, with the reason in explain; a plain member, a subscriber named directly, and critical workflows are not held to it', async () => {
      const { tidings, sent } = await engine();
      await tidings.topics.subscriptions.create('ada', 'releases', { identifier: 'ada-releases' });
      await tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'digest', { channels: { email: false } });
      await tidings.topics.addSubscribers('releases', ['bob']);

      const { transactionId } = await tidings.trigger({ name: 'digest', to: { type: 'Topic', topicKey: 'releases' }, payload: { n: 1 } });
      while ((await tidings.runDue()) > 0);
      expect(sent.map((m) => m.to.subscriberId)).toEqual(['bob']);
      const [adaRecord] = await tidings.explain(transactionId!, 'ada');
      expect(adaRecord!.entries.map((e) => [e.type, e.decision])).toEqual([
        ['in_app', 'delivered'],
        ['email', 'skipped'],
      ]);
      expect(adaRecord!.entries[1]!.reason).toBe('email is off in the subscription "ada-releases" to topic "releases"');
      expect((await tidings.messages.byTransaction(transactionId!)).filter((m) => m.channel === 'in_app')).toHaveLength(2);

      // Named directly as well as through the topic, ada gets everything.
      const direct = await tidings.trigger({ name: 'digest', to: [{ type: 'Topic', topicKey: 'releases' }, 'ada'], payload: { n: 2 } });
      while ((await tidings.runDue()) > 0);
      expect((await tidings.messages.byTransaction(direct.transactionId!)).filter((m) => m.channel === 'email')).toHaveLength(2);

      // The workflow off: its in-app step (walked inline, in the trigger's transaction) is skipped too.
      await tidings.topics.subscriptions.updatePreference('ada', 'ada-releases', 'replies', { enabled: false });
      const reply = await tidings.trigger({ name: 'replies', to: { type: 'Topic', topicKey: 'releases' }, payload: { n: 3 } });
      expect((await tidings.messages.byTransaction(reply.transactionId!)).map((m) => m.subscriberId)).toEqual(['bob']);
      expect((await tidings.explain(reply.transactionId!, 'ada'))[0]!.entries[0]).toMatchObject({ decision: 'skipped', reason: 'the workflow is off in the subscription "ada-releases" to topic "releases"' });
      // Critical workflows always send.
      const login = await tidings.trigger({ name: 'security', to: { type: 'Topic', topicKey: 'releases' } });
      expect((await tidings.messages.byTransaction(login.transactionId!)).map((m) => m.subscriberId).sort()).toEqual(['ada', 'bob']);
    });

    it('a large audience paged through fan-out jobs is held to subscriptions too; removing a member or deleting the topic takes their subscriptions along', async () => {
      const { tidings } = await engine({ fanoutChunk: 1, inlineLimit: 1 });
      for (const subscriberId of ['ada', 'bob', 'cy']) await tidings.topics.subscriptions.create(subscriberId, 'releases');
      await tidings.topics.subscriptions.updatePreference('cy', 'tk_releases:si_cy', 'replies', { enabled: false });
      const { transactionId } = await tidings.trigger({ name: 'replies', to: { type: 'Topic', topicKey: 'releases' }, payload: { n: 1 } });
      while ((await tidings.runDue()) > 0);
      expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.subscriberId).sort()).toEqual(['ada', 'bob']);
      expect((await tidings.explain(transactionId!, 'cy'))[0]!.entries[0]!.decision).toBe('skipped');

      await tidings.topics.removeSubscribers('releases', ['cy']);
      await tidings.topics.addSubscribers('releases', ['cy']);
      expect(await tidings.topics.subscriptions.get('cy', 'releases')).toMatchObject({ identifier: 'tk_releases:si_cy', preferences: [] });
      await tidings.topics.subscriptions.updatePreference('ada', 'tk_releases:si_ada', 'replies', { enabled: false });
      await tidings.topics.delete('releases');
      await tidings.topics.addSubscribers('releases', ['ada']);
      expect((await tidings.topics.subscriptions.get('ada', 'releases'))!.preferences).toEqual([]);
    });

    it('a subscriber deleted and made again under the same subscriberId does not inherit the old subscriptions', async () => {
      const { tidings } = await engine();
      await tidings.topics.subscriptions.create('ada', 'releases', { preferences: [{ workflowId: 'replies', enabled: false }] });
      await tidings.subscribers.delete('ada');
      // Nothing of the old subscription is left behind.
      expect(await tidings.storage.records.find(tidings.environmentId, 'topic-subscriptions', {})).toEqual([]);
      await tidings.subscribers.upsert({ subscriberId: 'ada' });
      await tidings.topics.addSubscribers('releases', ['ada']);
      expect((await tidings.topics.subscriptions.get('ada', 'releases'))!.preferences).toEqual([]);
      const { transactionId } = await tidings.trigger({ name: 'replies', to: { type: 'Topic', topicKey: 'releases' }, payload: { n: 1 } });
      expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.subscriberId)).toEqual(['ada']);
    });
  });
}
