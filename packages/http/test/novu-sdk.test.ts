import { Novu } from '@novu/api';
import { ErrorDto, PayloadValidationExceptionDto, ValidationErrorDto } from '@novu/api/models/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_A, listen, setup } from './helpers.js';

describe('Novu’s official SDK (@novu/api) against a real Tidings server', () => {
  let env: Awaited<ReturnType<typeof setup>>;
  let server: Awaited<ReturnType<typeof listen>>;
  let novu: Novu;
  beforeAll(async () => {
    env = await setup();
    server = await listen(env.app);
    novu = new Novu({ secretKey: KEY_A, serverURL: server.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 });
    await env.a.integrations.upsert({ name: 'Mail', identifier: 'mail', providerId: 'nodemailer', channel: 'email', primary: true, credentials: { host: 'smtp.test', password: 'hunter2secret', apiKey: 'sk_live_123456' } });
    await env.a.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada' });
    await env.a.topics.addSubscribers('team', ['ada']);
  });
  afterAll(() => server.close());

  it('triggerBulk: results per event, processed and workflow_not_found', async () => {
    const { result } = await novu.triggerBulk({ events: [{ workflowId: 'welcome', to: 'ada', payload: {} }, { workflowId: 'missing', to: 'ada', payload: {} }] });
    expect(result.map((r) => r.status)).toEqual(['processed', 'error']);
    expect(result[1]!.error).toEqual(['workflow_not_found']);
    expect(result[0]!.transactionId).toBeTruthy();
  });

  it('markAllAs and updateAsSeen return what the engine stored', async () => {
    await env.a.runDue();
    const [message] = (await env.a.messages.feed('ada')).items;
    const marked = await novu.subscribers.messages.markAllAs({ messageId: message!._id, markAs: 'read' }, 'ada');
    expect(marked.result.map((m) => [m.id, m.read, m.seen])).toEqual([[message!._id, true, true]]);
    const acted = await novu.subscribers.messages.updateAsSeen({ subscriberId: 'ada', messageId: message!._id, type: 'primary', markMessageActionAsSeenDto: { status: 'done' } });
    expect(acted.result.cta.action?.status).toBe('done');
    const stored = (await env.a.messages.feed('ada')).items[0]!;
    expect(stored).toMatchObject({ read: true, cta: { action: { status: 'done', result: { type: 'primary' } } } });
  });

  it('preferences.update returns global and per-workflow preferences', async () => {
    const { result } = await novu.subscribers.preferences.update({ channels: { email: false }, schedule: { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '09:00 AM', end: '05:00 PM' }] } } } }, 'ada');
    expect(result.global.channels.email).toBe(false);
    expect(result.global.schedule?.isEnabled).toBe(true);
    expect(result.workflows.map((w) => w.workflow.identifier)).toEqual(['welcome']);
  });

  it('integrations.listActive masks secrets; topics.subscribers.retrieve finds the member', async () => {
    const { result } = await novu.integrations.listActive();
    expect(result).toHaveLength(1);
    expect(result[0]!.credentials?.password).toBe('********cret');
    expect(result[0]!.credentials?.apiKey).not.toContain('sk_live');
    const membership = await novu.topics.subscribers.retrieve('ada', 'team');
    expect(membership.result).toMatchObject({ topicKey: 'team', externalSubscriberId: 'ada' });
  });

  it('errors come out as the SDK’s classes: 401, 404, 422 and the 400 of bulk', async () => {
    const stranger = new Novu({ secretKey: 'wrong', serverURL: server.url, retryConfig: { strategy: 'none' }, timeoutMs: 10_000 });
    await expect(stranger.integrations.listActive()).rejects.toSatisfy((e) => e instanceof ErrorDto && e.statusCode === 401);
    await expect(novu.topics.subscribers.retrieve('nobody', 'team')).rejects.toSatisfy((e) => e instanceof ErrorDto && e.statusCode === 404);
    const badTime = { isEnabled: true, weeklySchedule: { monday: { isEnabled: true, hours: [{ start: '17:00', end: '05:00 PM' }] } } };
    await expect(novu.subscribers.preferences.update({ schedule: badTime }, 'ada')).rejects.toSatisfy(
      (e) => e instanceof ValidationErrorDto && e.statusCode === 422 && 'schedule.weeklySchedule.monday.hours[0].start' in e.errors,
    );
    const tooMany = Array.from({ length: 101 }, () => ({ workflowId: 'welcome', to: 'ada', payload: {} }));
    await expect(novu.triggerBulk({ events: tooMany })).rejects.toSatisfy((e) => e instanceof PayloadValidationExceptionDto && e.message === 'events must contain no more than 100 elements');
  });
});
