import { describe, expect, it } from 'vitest';
import { isTidingsError, type WorkflowInput } from '../src/index.js';
import { testEngine } from './helpers.js';

const mondayTuesday = {
  isEnabled: true,
  weeklySchedule: {
    monday: { isEnabled: true, hours: [{ start: '9:00 AM', end: '5:00 PM' }] },
    tuesday: { isEnabled: true, hours: [{ start: '09:00 am', end: '05:00 pm' }] },
  },
};

const mixed = (extra: Partial<WorkflowInput> = {}): WorkflowInput => ({
  name: 'Mixed',
  triggers: [{ identifier: 'mixed' }],
  steps: [
    { template: { type: 'in_app', content: 'in app' } },
    { template: { type: 'email', subject: 'mail', content: 'mail' } },
  ],
  ...extra,
});

async function setup(options: Parameters<typeof testEngine>[0] = {}, workflow = mixed()) {
  // Monday 2026-06-01 22:00Z = 6 PM in New York.
  const env = testEngine(options, '2026-06-01T22:00:00.000Z');
  await env.tidings.workflows.upsert(workflow);
  await env.tidings.subscribers.upsert({ subscriberId: 'ny', timezone: 'America/New_York', email: 'ny@x.io' });
  await env.tidings.preferences.update('ny', { schedule: mondayTuesday });
  return env;
}

describe('preferences in the engine', () => {
  it('an email outside the schedule is sent at the next opening in the subscriber’s zone; in_app is never held', async () => {
    const { tidings, clock } = await setup();
    const { transactionId } = await tidings.trigger({ name: 'mixed', to: 'ny' });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(transactionId!)).map((m) => m.channel)).toEqual(['in_app']);
    const [record] = await tidings.explain(transactionId!);
    expect(record!.entries.at(-1)).toMatchObject({ decision: 'held', reason: expect.stringContaining('2026-06-02T13:00:00.000Z') });
    clock.set('2026-06-02T12:59:59.000Z');
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(transactionId!)).toHaveLength(1);
    clock.set('2026-06-02T13:00:00.000Z');
    await tidings.runDue();
    const messages = await tidings.messages.byTransaction(transactionId!);
    expect(messages.map((m) => [m.channel, m.createdAt])).toEqual([
      ['in_app', '2026-06-01T22:00:00.000Z'],
      ['email', '2026-06-02T13:00:00.000Z'],
    ]);
  });

  it("outsideSchedule: 'skip' drops the email; critical workflows ignore schedule and preferences", async () => {
    const skip = await setup({ outsideSchedule: 'skip' });
    const a = await skip.tidings.trigger({ name: 'mixed', to: 'ny' });
    await skip.tidings.runDue();
    expect((await skip.tidings.messages.byTransaction(a.transactionId!)).map((m) => m.channel)).toEqual(['in_app']);
    expect(await skip.tidings.runDue()).toBe(0);

    const critical = await setup({}, mixed({ critical: true }));
    await critical.tidings.preferences.update('ny', { channels: { email: false, in_app: false } });
    const b = await critical.tidings.trigger({ name: 'mixed', to: 'ny' });
    await critical.tidings.runDue();
    expect((await critical.tidings.messages.byTransaction(b.transactionId!)).map((m) => m.channel)).toEqual(['in_app', 'email']);
  });

  it('a channel turned off skips the step and the trace says why; workflow preferences beat global ones', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert(mixed());
    await tidings.subscribers.upsert({ subscriberId: 'u', email: 'u@x.io' });
    await tidings.preferences.update('u', { channels: { in_app: false } });
    await tidings.preferences.update('u', { workflowId: 'mixed', channels: { email: false } });
    const { transactionId } = await tidings.trigger({ name: 'mixed', to: 'u' });
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(transactionId!)).toEqual([]);
    const [record] = await tidings.explain(transactionId!);
    expect(record!.entries.map((e) => [e.decision, e.reason])).toEqual([
      ['skipped', "in_app is off by the subscriber's preferences"],
      ['skipped', "email is off by the subscriber's preferences"],
    ]);
  });

  it('get and update: merge laws, global patch clears workflow choices, workflowId by id/identifier/slug', async () => {
    const { tidings } = testEngine();
    const wf = await tidings.workflows.upsert(mixed({ preferenceSettings: { email: false } }));
    await tidings.workflows.upsert({ name: 'Crit', triggers: [{ identifier: 'crit' }], critical: true, steps: [{ template: { type: 'sms', content: 'x' } }] });
    await tidings.subscribers.upsert({ subscriberId: 'u' });
    const initial = await tidings.preferences.get('u');
    // Only the channels the (non-critical, active) workflows use, as Novu lists them.
    expect(initial.global).toEqual({ enabled: true, channels: { in_app: true, email: true } });
    expect(initial.workflows).toEqual([
      { enabled: true, channels: { in_app: true, email: false }, overrides: [{ channel: 'in_app', source: 'template' }, { channel: 'email', source: 'template' }], workflow: { slug: wf.slug, identifier: 'mixed', name: 'Mixed', updatedAt: wf.updatedAt } },
    ]);
    expect(await tidings.preferences.update('u', {})).toEqual(initial);
    for (const ref of [wf._id, 'mixed', wf.slug]) {
      const after = await tidings.preferences.update('u', { workflowId: ref, channels: { email: true } });
      expect(after.workflows[0]!.channels).toEqual({ in_app: true, email: true });
      expect(after.workflows[0]!.overrides).toContainEqual({ channel: 'email', source: 'subscriber' });
    }
    const global = await tidings.preferences.update('u', { channels: { email: false } });
    expect(global.workflows[0]!.channels.email).toBe(false);
    expect(global.global.channels.email).toBe(false);
    await expect(tidings.preferences.update('u', { workflowId: 'crit', channels: { sms: false } })).rejects.toSatisfy(
      (e) => isTidingsError(e, 'validation_failed') && /critical/.test(e.message) && e.issues[0]!.path === 'workflowId',
    );
    await expect(tidings.preferences.update('u', { workflowId: 'nope', channels: {} })).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    await expect(tidings.preferences.update('ghost', {})).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    await expect(tidings.preferences.get('ghost')).rejects.toSatisfy((e) => isTidingsError(e, 'not_found'));
    await expect(tidings.preferences.update('u', { schedule: { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '17:00', end: '6:00 PM' }] } } } })).rejects.toSatisfy(
      (e) => isTidingsError(e, 'validation_failed') && e.issues[0]!.path === 'schedule.weeklySchedule.monday.hours[0].start',
    );
  });

  it('a schedule replaces the stored one whole and is reported with the global preference', async () => {
    const { tidings } = await setup();
    const friday = { isEnabled: true, weeklySchedule: { friday: { isEnabled: true, hours: [{ start: '8:00 AM', end: '9:00 AM' }] } } };
    const after = await tidings.preferences.update('ny', { schedule: friday, channels: { sms: false } });
    expect(after.global.schedule).toEqual(friday);
    expect((await tidings.preferences.update('ny', { channels: { sms: true } })).global.schedule).toEqual(friday);
  });
});
