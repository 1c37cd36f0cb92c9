/**
 * Novu's own API end-to-end tests are the reference for the wire: each test below names the one in
 * novuhq/novu (apps/api/src/app/**) whose expectations it checks, and drives a real `tidings serve`
 * (SQLite, over a port) with Novu's SDKs — `@novu/api` 3.19.1 and `@novu/node` 2.6.6, both pinned — or
 * with plain HTTP where an SDK hides what the test asserts. Like Novu's tests, each block starts
 * from an empty environment: its own server on its own database file.
 */
import { ErrorDto, ValidationErrorDto } from '@novu/api/models/errors';
import { type WorkflowInput } from '@tidings/core';
import { beginIdempotencyKey } from '@tidings/core/internal';
import { beforeEach, describe, expect, it } from 'vitest';
import { sdkServer } from './sdk-server.js';

const KEY = 'tid_e2e_key';

const sdk = sdkServer('novu-e2e', KEY);
const { http } = sdk;

/** The workflow Novu's `session.createTemplate()` makes, reduced to what these tests read. */
async function inAppWorkflow(identifier = 'test-template', extra: { steps?: WorkflowInput['steps']; active?: boolean } = {}) {
  return sdk.server.tidings.workflows.upsert({
    name: `Workflow ${identifier}`,
    triggers: [{ identifier }],
    ...(extra.active !== undefined && { active: extra.active }),
    steps: extra.steps ?? [{ template: { type: 'in_app', content: 'Test content for <b>{{ payload.firstName }}</b>', cta: { type: 'redirect', data: { url: '/cypress/test-shell/example/test?test-param=true' } } } }],
  });
}

const inbox = async (subscriberId: string) => (await sdk.server.tidings.messages.feed(subscriberId, { limit: 100 })).items;

describe('apps/api/src/app/events/e2e/trigger-event.e2e.ts', () => {
  it('should trigger an event successfully / should correctly set expiration date (TTL): the answer holds acknowledged, status and transactionId', async () => {
    await inAppWorkflow();
    const { result } = await sdk.novu.trigger({ workflowId: 'test-template', to: ['sub-1'], payload: { firstName: 'Testing of User Name' } });
    expect(Object.keys(result).sort()).toEqual(['acknowledged', 'status', 'transactionId']);
    expect(result).toMatchObject({ acknowledged: true, status: 'processed', transactionId: expect.any(String) });
  });

  it('should throw an error when workflow identifier provided is not in the database: 422 workflow_not_found, and the SDK throws', async () => {
    const plain = await http('POST', '/v1/events/trigger', { name: 'non-existent-template-identifier', to: ['sub-1'], payload: { myUser: { lastName: 'Test' } } });
    expect(plain.status).toBe(422);
    expect(plain.body).toMatchObject({ statusCode: 422, message: 'workflow_not_found', error: 'Unprocessable Entity' });
    await expect(sdk.novu.trigger({ workflowId: 'non-existent-template-identifier', to: 'sub-1' })).rejects.toSatisfy((e) => e instanceof ValidationErrorDto && e.statusCode === 422);
    // An invalid event is a 422 naming the member, as Novu's validation pipe answers.
    const invalid = await http('POST', '/v1/events/trigger', { name: 'test-template' });
    expect(invalid).toMatchObject({ status: 422, body: { errors: { to: { messages: [expect.any(String)] } } } });
  });

  it('should generate message and notification based on event: the message keeps the payload but not its attachments', async () => {
    await inAppWorkflow();
    const attachments = [{ name: 'text1.txt', file: 'hello world!' }, { name: 'text2.txt', file: Buffer.from('hello world!').toString('base64') }];
    await sdk.novu.trigger({ workflowId: 'test-template', to: [{ subscriberId: 'sub-1' }], payload: { firstName: 'Testing of User Name', urlVar: '/test/url/path', attachments } });
    const [message, ...rest] = await inbox('sub-1');
    expect(rest).toEqual([]);
    expect(message).toMatchObject({ channel: 'in_app', content: 'Test content for <b>Testing of User Name</b>', seen: false, cta: { data: { url: '/cypress/test-shell/example/test?test-param=true' } } });
    expect(message!.lastSeenDate).toBeUndefined();
    expect(message!.payload).toEqual({ firstName: 'Testing of User Name', urlVar: '/test/url/path' });
  });

  it('should create a subscriber based on event / should allow to nullify the subscriber fields / should allow to make some fields empty / should not unset a subscriber email', async () => {
    await inAppWorkflow();
    const full = { subscriberId: 'sub-2', firstName: 'Test Name', lastName: 'Last of name', email: 'test@email.novu', phone: '+1234567890', avatar: 'https://example.com/a.jpg', timezone: 'America/New_York', locale: 'en-US', data: { custom1: 'custom value1' } };
    await sdk.novu.trigger({ workflowId: 'test-template', to: [full] });
    expect(await sdk.server.tidings.subscribers.get('sub-2')).toMatchObject(full);
    await sdk.novu.trigger({ workflowId: 'test-template', to: [{ subscriberId: 'sub-2', firstName: 'Test Name', email: undefined }] });
    expect((await sdk.server.tidings.subscribers.get('sub-2'))!.email).toBe('test@email.novu');
    await http('POST', '/v1/events/trigger', { name: 'test-template', to: [{ subscriberId: 'sub-2', firstName: '', lastName: '', phone: '', avatar: '' }] });
    expect(await sdk.server.tidings.subscribers.get('sub-2')).toMatchObject({ firstName: '', lastName: '', phone: '', avatar: '', email: 'test@email.novu' });
    const cleared = { firstName: null, lastName: null, email: null, locale: null, phone: null, avatar: null, timezone: null, data: null };
    await http('POST', '/v1/events/trigger', { name: 'test-template', to: [{ subscriberId: 'sub-2', ...cleared }] });
    expect(await sdk.server.tidings.subscribers.get('sub-2')).toMatchObject(cleared);
  });

  it('should trigger in-app notification: recipients with and without type "Subscriber"', async () => {
    await inAppWorkflow('greet', { steps: [{ template: { type: 'in_app', content: 'Hello {{ subscriber.lastName }}, Welcome to {{ payload.organizationName }}' } }] });
    await sdk.novu.trigger({
      workflowId: 'greet',
      to: [{ subscriberId: 'no_type_123', lastName: 'smith_no_type' }, { type: 'Subscriber', subscriberId: 'with_type_123', lastName: 'smith_with_type' } as never],
      payload: { organizationName: 'Umbrella Corp' },
    });
    expect((await inbox('no_type_123'))[0]!.content).toBe('Hello smith_no_type, Welcome to Umbrella Corp');
    expect((await inbox('with_type_123'))[0]!.content).toBe('Hello smith_with_type, Welcome to Umbrella Corp');
  });

  it('should fill trigger payload with default variables / should trigger with given required variables: a required one left out is a 422 naming it', async () => {
    await inAppWorkflow('vars', {
      steps: [{ template: { type: 'in_app', content: 'Hello {{ payload.myUser.lastName }}, Welcome to {{ payload.organizationName }}', variables: [{ name: 'myUser.lastName', type: 'String', defaultValue: 'John Doe' }, { name: 'organizationName', type: 'String', required: true }] } }],
    });
    await sdk.novu.trigger({ workflowId: 'vars', to: 'sub-v', payload: { organizationName: 'Umbrella Corp' } });
    expect((await inbox('sub-v'))[0]!.content).toBe('Hello John Doe, Welcome to Umbrella Corp');
    const error = await sdk.novu.trigger({ workflowId: 'vars', to: 'sub-v', payload: { myUser: { lastName: 'Test' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationErrorDto);
    expect((error as ValidationErrorDto).errors['payload.organizationName']!.messages).toEqual(['is required by the workflow']);
    // The same event in a bulk call is one refused result among others, as Novu's bulk answers.
    const { result } = await sdk.novu.triggerBulk({ events: [{ workflowId: 'vars', to: 'sub-v', payload: {} }, { workflowId: 'vars', to: 'sub-v', payload: { organizationName: 'X' } }] });
    expect(result.map((r) => r.status)).toEqual(['error', 'processed']);
  });

  it('should override - active false / should return correct status when using a non existing tenant (parse-event-request.usecase)', async () => {
    await inAppWorkflow('off', { active: false });
    await inAppWorkflow();
    expect((await sdk.novu.trigger({ workflowId: 'off', to: 'sub-1' })).result.status).toBe('trigger_not_active');
    expect((await sdk.novu.trigger({ workflowId: 'test-template', to: 'sub-1', tenant: 'test1' })).result.status).toBe('no_tenant_found');
    // Neither event was recorded: not even its subscriber was created.
    expect(await sdk.server.tidings.subscribers.get('sub-1')).toBeNull();
  });
});

describe('apps/api/src/app/events/e2e/trigger-event-topic.e2e.ts and trigger-multicast.e2e.ts', () => {
  beforeEach(async () => {
    await inAppWorkflow();
    for (const id of ['s1', 's2', 's3', 's4', 's5']) await sdk.server.tidings.subscribers.upsert({ subscriberId: id });
    await sdk.server.tidings.topics.addSubscribers('topic-key-1', ['s1', 's2']);
    await sdk.server.tidings.topics.addSubscribers('topic-key-2', ['s2', 's3']);
  });

  it('should trigger an event successfully / should generate message and notification based on event', async () => {
    const { result } = await sdk.novu.trigger({ workflowId: 'test-template', to: [{ type: 'Topic', topicKey: 'topic-key-1' }], payload: { firstName: 'Testing of User Name' } });
    expect(result).toMatchObject({ acknowledged: true, status: 'processed', transactionId: expect.any(String) });
    for (const id of ['s1', 's2']) expect((await inbox(id)).map((m) => m.content)).toEqual(['Test content for <b>Testing of User Name</b>']);
  });

  it('should exclude actor from topic events trigger / should only exclude actor from topic, should send event if actor explicitly included', async () => {
    await sdk.novu.trigger({ workflowId: 'test-template', to: [{ type: 'Topic', topicKey: 'topic-key-1' }], actor: { subscriberId: 's1' } });
    expect(await inbox('s1')).toHaveLength(0);
    expect(await inbox('s2')).toHaveLength(1);
    await sdk.novu.trigger({ workflowId: 'test-template', to: [{ type: 'Topic', topicKey: 'topic-key-1' }, 's1'], actor: { subscriberId: 's1' } });
    expect(await inbox('s1')).toHaveLength(1);
    expect(await inbox('s2')).toHaveLength(2);
  });

  it('multiple topics and subscribers: each subscriber once (should deduplicate subscribers across topics / across single subscribers and topics)', async () => {
    await sdk.novu.trigger({ workflowId: 'test-template', to: [{ type: 'Topic', topicKey: 'topic-key-1' }, { type: 'Topic', topicKey: 'topic-key-2' }, 's2', 's4', { subscriberId: 's5', firstName: 'Subscribers' }] });
    for (const id of ['s1', 's2', 's3', 's4', 's5']) expect(await inbox(id)).toHaveLength(1);
  });
});

describe('apps/api/src/app/events/e2e/bulk-trigger.e2e.ts', () => {
  beforeEach(() => inAppWorkflow());

  it('should return the response array in correct order', async () => {
    const events = ['1111', '2222', '3333'].map((transactionId) => ({ transactionId, workflowId: 'test-template', to: ['sub-1'], payload: { firstName: 'Testing of User Name' } }));
    const { result } = await sdk.novu.triggerBulk({ events });
    expect(result.map((r) => [r.status, r.acknowledged, r.transactionId])).toEqual([
      ['processed', true, '1111'],
      ['processed', true, '2222'],
      ['processed', true, '3333'],
    ]);
  });

  it('should throw an error when sending more than 100 events: 422 with the sentence under errors.events', async () => {
    const event = { transactionId: '2222', workflowId: 'test-template', to: ['sub-1'] };
    const error = await sdk.novu.triggerBulk({ events: Array.from({ length: 101 }, () => event) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationErrorDto);
    expect((error as ValidationErrorDto).statusCode).toBe(422);
    expect((error as ValidationErrorDto).errors['events']!.messages![0]).toBe('events must contain no more than 100 elements');
    const plain = await http('POST', '/v1/events/trigger/bulk', { events: Array.from({ length: 101 }, () => ({ name: 'test-template', to: 'sub-1' })) });
    expect(plain.body.message).toEqual(['events must contain no more than 100 elements']);
  });

  it('should handle bulk if one of the events returns errors', async () => {
    const { result } = await sdk.novu.triggerBulk({
      events: [
        { transactionId: 'e-1111', workflowId: 'non-existing-trigger', to: ['sub-1'] },
        { transactionId: 'e-2222', workflowId: 'test-template', to: ['sub-1'] },
        { transactionId: 'e-3333', workflowId: '', to: ['sub-1'] },
      ],
    });
    expect(result).toHaveLength(3);
    expect(result[0]).toMatchObject({ status: 'error', error: ['workflow_not_found'] });
    expect(result[1]!.status).toBe('processed');
    expect(result[2]!.status).toBe('error');
  });
});

describe('apps/api/src/app/subscribers/e2e/mark-as-by-mark.e2e.ts', () => {
  let messageId: string;
  beforeEach(async () => {
    await inAppWorkflow();
    await sdk.novu.trigger({ workflowId: 'test-template', to: 'sub-1' });
    messageId = (await inbox('sub-1'))[0]!._id;
  });
  const stored = async () => (await inbox('sub-1'))[0]!;

  it('should change the seen status / should change the read status', async () => {
    await sdk.novu.subscribers.messages.markAllAs({ messageId, markAs: 'seen' }, 'sub-1');
    expect(await stored()).toMatchObject({ seen: true, read: false, lastSeenDate: expect.any(String) });
    expect((await stored()).lastReadDate).toBeUndefined();
    await sdk.novu.subscribers.messages.markAllAs({ messageId, markAs: 'read' }, 'sub-1');
    expect(await stored()).toMatchObject({ seen: true, read: true, lastSeenDate: expect.any(String), lastReadDate: expect.any(String) });
  });

  it('should change the seen status to unseen / should change the read status to unread: the dates stay', async () => {
    await sdk.novu.subscribers.messages.markAllAs({ messageId, markAs: 'read' }, 'sub-1');
    await sdk.novu.subscribers.messages.markAllAs({ messageId, markAs: 'unread' }, 'sub-1');
    expect(await stored()).toMatchObject({ seen: true, read: false, lastSeenDate: expect.any(String), lastReadDate: expect.any(String) });
    await sdk.novu.subscribers.messages.markAllAs({ messageId, markAs: 'unseen' }, 'sub-1');
    expect(await stored()).toMatchObject({ seen: false, read: false, lastSeenDate: expect.any(String) });
  });

  it('should throw exception if messages were not provided: 400 messageId is required', async () => {
    const plain = await http('POST', '/v1/subscribers/sub-1/messages/mark-as', { markAs: 'seen' });
    expect(plain).toMatchObject({ status: 400, body: { statusCode: 400, message: 'messageId is required' } });
    const error = await sdk.novu.subscribers.messages.markAllAs({ messageId: [], markAs: 'seen' }, 'sub-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorDto);
    expect(error).toMatchObject({ statusCode: 400, message: 'messageId is required' });
  });
});

describe('apps/api/src/app/subscribers/e2e/get-notifications-feed.e2e.ts and get-unseen-count.e2e.ts', () => {
  it('should throw exception on invalid subscriber id: 400 in Novu’s words, for the feed and the counts', async () => {
    await inAppWorkflow();
    await sdk.novu.trigger({ workflowId: 'test-template', to: 'sub-f' });
    const feed = await http('GET', '/v1/subscribers/sub-f/notifications/feed?limit=5');
    expect(feed.body.pageSize).toBe(5);
    const missing = await http('GET', '/v1/subscribers/sub-f111/notifications/feed?seen=false&limit=5');
    expect(missing).toMatchObject({ status: 400, body: { message: 'Subscriber not found for this environment with the id: sub-f111. Make sure to create a subscriber before fetching the feed.' } });
    expect((await http('GET', '/v1/subscribers/sub-f/notifications/unseen')).body.data.count).toBe(1);
    const unseen = await http('GET', '/v1/subscribers/sub-f111/notifications/unseen');
    expect(unseen.status).toBe(400);
    expect(unseen.body.message).toContain('Subscriber sub-f111 is not exist in environment');
    expect((await http('GET', '/v1/subscribers/sub-f111/notifications/counts')).status).toBe(400);
  });
});

describe('members Novu’s SDKs send that Tidings does not use (NOVU_EXTRAS), and members nobody knows', () => {
  beforeEach(() => inAppWorkflow());

  it('bridgeUrl and agentId are dropped on the trigger routes; any other unknown member is a 422 naming it', async () => {
    expect((await sdk.novu.trigger({ workflowId: 'test-template', to: 'sub-x', bridgeUrl: 'https://bridge.example', agentId: 'agent-1' })).result.status).toBe('processed');
    expect((await sdk.legacy.trigger('test-template', { to: 'sub-x', payload: {}, bridgeUrl: 'https://bridge.example' })).status).toBe(201);
    const { result } = await sdk.novu.triggerBulk({ events: [{ workflowId: 'test-template', to: 'sub-x', bridgeUrl: 'https://bridge.example' }] });
    expect(result[0]!.status).toBe('processed');
    const unknown = await http('POST', '/v1/events/trigger', { name: 'test-template', to: 'sub-x', payloads: { a: 1 } });
    expect(unknown).toMatchObject({ status: 422, body: { errors: { payloads: { messages: ['is not a known member'] } } } });
    const misplaced = await http('POST', '/v1/workflows', { name: 'D', triggers: [{ identifier: 'd' }], steps: [{ template: { type: 'digest', metadata: { type: 'regular', amount: 1, unit: 'minutes' } } }] });
    expect(misplaced.status).toBe(422);
    expect(misplaced.body.errors['steps[0].template.metadata'].messages[0]).toMatch(/^is not a known member: digest and delay settings are the step's `metadata`/);
  });
});

describe('apps/api/src/app/subscribers-v2/e2e/patch-subscriber-preferences.e2e.ts', () => {
  let workflow: Awaited<ReturnType<typeof inAppWorkflow>>;
  beforeEach(async () => {
    workflow = await inAppWorkflow('prefs', { steps: [{ template: { type: 'in_app', content: 'x' } }, { template: { type: 'email', subject: 's', content: 'x' } }] });
    expect((await http('POST', '/v1/subscribers', { subscriberId: 'sub-p', firstName: 'Test', email: 'p@subscriber.com' })).status).toBe(201);
  });

  it('should patch workflow channel preferences: by id, trigger identifier and slug; global lists only the channels workflows use', async () => {
    const one = await sdk.novu.subscribers.preferences.update({ channels: { email: false, inApp: true }, workflowId: workflow._id }, 'sub-p');
    expect(one.result.global.channels).toEqual({ inApp: true, email: true });
    expect(one.result.workflows).toHaveLength(1);
    expect(one.result.workflows[0]!.channels).toEqual({ inApp: true, email: false });
    expect(one.result.workflows[0]!.workflow).toMatchObject({ name: workflow.name, identifier: 'prefs' });
    const two = await sdk.novu.subscribers.preferences.update({ channels: { email: true, inApp: false }, workflowId: 'prefs' }, 'sub-p');
    expect(two.result.workflows[0]!.channels).toEqual({ inApp: false, email: true });
    const three = await sdk.novu.subscribers.preferences.update({ channels: { email: false, inApp: true }, workflowId: workflow.slug }, 'sub-p');
    expect(three.result.workflows[0]!.channels).toEqual({ inApp: true, email: false });
  });

  it('should patch global channel preferences', async () => {
    const { result } = await sdk.novu.subscribers.preferences.update({ channels: { email: false, inApp: false } }, 'sub-p');
    expect(result.global.channels).toEqual({ inApp: false, email: false });
    expect(result.workflows[0]!.channels).toEqual({ inApp: false, email: false });
  });

  it('bulkUpdate: several workflows in one call, each answered as the Inbox shows it; a missing workflow changes none', async () => {
    const other = await inAppWorkflow('prefs-other', { steps: [{ template: { type: 'in_app', content: 'x' } }, { template: { type: 'email', subject: 's', content: 'x' } }] });
    const { result } = await sdk.novu.subscribers.preferences.bulkUpdate({ preferences: [{ workflowId: 'prefs', channels: { email: false } }, { workflowId: other._id, channels: { inApp: false } }] }, 'sub-p');
    expect(result.map((p) => [p.workflow?.identifier, p.channels])).toEqual([
      ['prefs', { inApp: true, email: false }],
      ['prefs-other', { inApp: false, email: true }],
    ]);
    await expect(sdk.novu.subscribers.preferences.bulkUpdate({ preferences: [{ workflowId: 'prefs', channels: { email: true } }, { workflowId: 'no-such-workflow', channels: { email: true } }] }, 'sub-p')).rejects.toSatisfy((e) => e instanceof ErrorDto && e.statusCode === 404);
    const after = await sdk.novu.subscribers.preferences.list({ subscriberId: 'sub-p' });
    expect(after.result.workflows.find((w) => w.workflow.identifier === 'prefs')?.channels.email).toBe(false);
    const refused = await http('PATCH', '/v2/subscribers/sub-p/preferences/bulk', { preferences: [{ workflowId: 'prefs', channels: { fax: true } }] });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('fax');
  });

  it('should return 404 when patching non-existent subscriber preferences / should return 400 when patching with invalid workflow id (an error either way)', async () => {
    await expect(sdk.novu.subscribers.preferences.update({ channels: { email: false } }, 'non-existent-ab12')).rejects.toSatisfy((e) => e instanceof ErrorDto && e.statusCode === 404);
    await expect(sdk.novu.subscribers.preferences.update({ channels: { email: false }, workflowId: 'invalid-workflow-id' }, 'sub-p')).rejects.toBeInstanceOf(Error);
  });
});

describe('apps/api/src/app/integrations/e2e/get-active-integration.e2e.ts and api-key-credentials-exposure.e2e.ts', () => {
  beforeEach(async () => {
    await sdk.server.tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', identifier: 'sg', credentials: { apiKey: 'SG.123', secretKey: 'abc' }, primary: true });
    await sdk.server.tidings.integrations.upsert({ providerId: 'twilio', channel: 'sms', identifier: 'tw', credentials: { accountSid: 'AC123', token: '123', from: '+1555' } });
    await sdk.server.tidings.integrations.upsert({ providerId: 'mailgun', channel: 'email', identifier: 'mg', active: false, credentials: { apiKey: 'key-1' } });
  });

  it('should get active integrations: only active ones, of the key’s environment, with credentials {} (the SDK parses them)', async () => {
    const { result } = await sdk.novu.integrations.listActive();
    expect(result.map((i) => i.identifier).sort()).toEqual(['sg', 'tw']);
    for (const integration of result) expect(integration).toMatchObject({ active: true, environmentId: sdk.server.tidings.environmentId, credentials: {} });
    const plain = await http('GET', '/v1/integrations/active');
    for (const integration of plain.body.data) expect(integration.credentials).toEqual({});
  });

  it('GET /v1/integrations: should return an empty credentials object when authenticated with an API key', async () => {
    const { body } = await http('GET', '/v1/integrations');
    expect(body.data).toHaveLength(3);
    for (const integration of body.data) expect(integration.credentials).toEqual({});
  });

  it('POST /v1/integrations, PUT /v1/integrations/:id, POST …/set-primary: should not return credentials, and the change is stored', async () => {
    const created = await http('POST', '/v1/integrations', { providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'SG.api-key-create', secretKey: 'secret-create' }, active: false, check: false });
    expect(created.status).toBe(201);
    expect(created.body.data).not.toHaveProperty('credentials');
    expect(created.body.data.name).toBe('sendgrid');
    const id = created.body.data._id as string;
    const updated = await http('PUT', `/v1/integrations/${id}`, { credentials: { apiKey: 'SG.api-key-update', secretKey: 'secret-update' }, active: true, check: false });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ _id: id, active: true });
    expect(updated.body.data).not.toHaveProperty('credentials');
    const primary = await http('POST', `/v1/integrations/${id}/set-primary`, {});
    expect(primary.status).toBe(200);
    expect(primary.body.data).toMatchObject({ _id: id, primary: true });
    expect(primary.body.data).not.toHaveProperty('credentials');
    const stored = (await sdk.server.tidings.integrations.list()).find((i) => i._id === id)!;
    expect(stored.credentials).toEqual({ apiKey: 'SG.api-key-update', secretKey: 'secret-update' });
    expect((await sdk.server.tidings.integrations.list()).filter((i) => i.channel === 'email' && i.primary).map((i) => i._id)).toEqual([id]);
    expect((await http('PUT', '/v1/integrations/nope', { active: true })).status).toBe(404);
  });
});

describe('apps/api/src/app/topics/e2e/get-topic-subscriber.e2e.ts', () => {
  it('creates the topic, adds the subscriber ({ succeeded } only), finds the membership with all its ids, and answers 404 in Novu’s words', async () => {
    await sdk.server.tidings.subscribers.upsert({ subscriberId: 'sub-t' });
    const created = await http('POST', '/v1/topics', { key: 'topic-key-get-topic-subscriber', name: 'topic-name' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ _id: expect.any(String), key: 'topic-key-get-topic-subscriber' });
    const added = await http('POST', '/v1/topics/topic-key-get-topic-subscriber/subscribers', { subscribers: ['sub-t'] });
    expect(added).toMatchObject({ status: 200, body: { data: { succeeded: ['sub-t'] } } });
    expect(added.body.data).toEqual({ succeeded: ['sub-t'] });
    const subscriber = (await sdk.server.tidings.subscribers.get('sub-t'))!;
    const found = await http('GET', '/v1/topics/topic-key-get-topic-subscriber/subscribers/sub-t');
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual({
      _id: expect.any(String),
      _environmentId: sdk.server.tidings.environmentId,
      _organizationId: sdk.server.tidings.organizationId,
      _subscriberId: subscriber._id,
      _topicId: created.body.data._id,
      topicKey: 'topic-key-get-topic-subscriber',
      externalSubscriberId: 'sub-t',
    });
    const viaSdk = await sdk.novu.topics.subscribers.retrieve('sub-t', 'topic-key-get-topic-subscriber');
    expect(viaSdk.result).toMatchObject({ topicKey: 'topic-key-get-topic-subscriber', externalSubscriberId: 'sub-t' });
    for (const [topicKey, subscriberId] of [['topic-key-get-topic-subscriber', 'ab12345678901234567890ab'], ['ab12345678901234567890ab', 'sub-t']] as const) {
      const missing = await http('GET', `/v1/topics/${topicKey}/subscribers/${subscriberId}`);
      expect(missing.body).toMatchObject({ statusCode: 404, error: 'Not Found', message: `Subscriber ${subscriberId} not found for topic ${topicKey} in the environment ${sdk.server.tidings.environmentId}` });
    }
    const unknown = await http('POST', '/v1/topics/topic-key-get-topic-subscriber/subscribers', { subscribers: ['ghost'] });
    expect(unknown.body.data).toEqual({ succeeded: [], failed: { notFound: ['ghost'] } });
  });
});

describe('apps/api/src/app/shared/framework/idempotency.e2e.ts', () => {
  beforeEach(() => inAppWorkflow());
  const trigger = (key: string, to = 'sub-i') => http('POST', '/v1/events/trigger', { name: 'test-template', to }, { 'idempotency-key': key });

  it('should return cached same response for duplicate requests: both carry Idempotency-Key, the replay Idempotency-Replay', async () => {
    const first = await trigger('IdempotencyKey1');
    const second = await trigger('IdempotencyKey1');
    expect(second.body).toEqual(first.body);
    expect(first.headers.get('idempotency-key')).toBe('IdempotencyKey1');
    expect(second.headers.get('idempotency-key')).toBe('IdempotencyKey1');
    expect(second.headers.get('idempotency-replay')).toBe('true');
    expect(await inbox('sub-i')).toHaveLength(1);
  });

  it('should return conflict when concurrent requests are made: 409, Retry-After 1, the docs link and Novu’s message', async () => {
    // A request holding the key elsewhere (another process) is in flight until it completes.
    const now = new Date();
    await beginIdempotencyKey(sdk.server.tidings.storage, sdk.server.tidings.environmentId, '4', 'held-elsewhere', {
      now: now.toISOString(),
      inFlightUntil: new Date(now.getTime() + 60_000).toISOString(),
      keepUntil: new Date(now.getTime() + 86_400_000).toISOString(),
    });
    const conflict = await trigger('4');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ statusCode: 409, error: 'Conflict', message: 'Request with key "4" is currently being processed. Please retry after 1 second' });
    expect(conflict.headers.get('retry-after')).toBe('1');
    expect(conflict.headers.get('idempotency-key')).toBe('4');
    expect(conflict.headers.get('link')).toBe('https://docs.novu.co/additional-resources/idempotency');
  });

  it('should return UnprocessableEntity when different body is sent for same key', async () => {
    await trigger('5');
    const reused = await trigger('5', 'someone-else');
    expect(reused).toMatchObject({ status: 422, body: { statusCode: 422, message: 'Request with key "5" is being reused for a different body' } });
  });

  it('should return non cached response for unique requests / for GET requests', async () => {
    const [a, b] = [await trigger('6'), await trigger('7')];
    expect(a.body.data.transactionId).not.toBe(b.body.data.transactionId);
    const get = await http('GET', '/v1/integrations/active', undefined, { 'idempotency-key': '8' });
    expect(get.headers.get('idempotency-key')).toBeNull();
  });

  it('should return cached error response for duplicate requests', async () => {
    const bad = () => http('POST', '/v1/events/trigger', { name: 'missing-workflow', to: 'sub-i' }, { 'idempotency-key': '9' });
    const [first, second] = [await bad(), await bad()];
    expect([first.status, second.status]).toEqual([422, 422]);
    expect(second.body.message).toBe(first.body.message);
    expect(second.headers.get('idempotency-replay')).toBe('true');
    expect(first.headers.get('idempotency-key')).toBe('9');
  });

  it('should return 400 when key bigger than allowed limit', async () => {
    const tooLong = await trigger('0'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toContain('has exceeded');
  });

  it('should NOT set the Idempotency-Key header when NO authorization header is present', async () => {
    const response = await fetch(`${sdk.server.url}/v1/events/trigger`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': '10' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('idempotency-key')).toBeNull();
  });
});

describe('@novu/node 2.6.6 (the older SDK: axios, v1 routes) against the same server', () => {
  beforeEach(() => inAppWorkflow('legacy', { steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}', cta: { action: { buttons: [{ type: 'primary', content: 'OK' }] } } } }] }));

  it('subscribers: identify, get, update, delete', async () => {
    expect((await sdk.legacy.subscribers.identify('old-1', { firstName: 'Ada', email: 'ada@example.com' })).status).toBe(201);
    expect((await sdk.legacy.subscribers.get('old-1')).data.data).toMatchObject({ subscriberId: 'old-1', firstName: 'Ada' });
    expect((await sdk.legacy.subscribers.update('old-1', { lastName: 'Lovelace' })).data.data).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    expect((await sdk.legacy.subscribers.delete('old-1')).data.data).toEqual({ acknowledged: true, status: 'deleted' });
    await expect(sdk.legacy.subscribers.get('old-1')).rejects.toMatchObject({ response: { status: 404 } });
  });

  it('trigger and bulkTrigger; events.cancel', async () => {
    const one = await sdk.legacy.trigger('legacy', { to: { subscriberId: 'old-2', firstName: 'Ada' }, payload: {} });
    expect(one.status).toBe(201);
    expect(one.data.data).toMatchObject({ acknowledged: true, status: 'processed', transactionId: expect.any(String) });
    const bulk = await sdk.legacy.bulkTrigger([{ name: 'legacy', to: 'old-2', payload: {} }, { name: 'missing', to: 'old-2', payload: {} }]);
    expect(bulk.data.data.map((r: { status: string }) => r.status)).toEqual(['processed', 'error']);
    expect((await inbox('old-2')).map((m) => m.content)).toEqual(['Hi Ada', 'Hi Ada']);
    expect((await sdk.legacy.events.cancel(one.data.data.transactionId)).data.data).toBe(true);
    await expect(sdk.legacy.trigger('missing', { to: 'old-2', payload: {} })).rejects.toMatchObject({ response: { status: 422, data: { message: 'workflow_not_found' } } });
  });

  it('subscribers.markMessageAs (the legacy markAs route) and markMessageActionSeen', async () => {
    await sdk.legacy.trigger('legacy', { to: { subscriberId: 'old-3', firstName: 'Ada' }, payload: {} });
    const messageId = (await inbox('old-3'))[0]!._id;
    const seen = await sdk.legacy.subscribers.markMessageAs('old-3', messageId, { seen: true });
    expect(seen.status).toBe(201);
    expect(seen.data.data).toMatchObject([{ _id: messageId, seen: true, read: false }]);
    await sdk.legacy.subscribers.markMessageRead('old-3', messageId);
    expect((await inbox('old-3'))[0]).toMatchObject({ seen: true, read: true });
    await sdk.legacy.subscribers.markMessageAs('old-3', messageId, { seen: false, read: false });
    expect((await inbox('old-3'))[0]).toMatchObject({ seen: false, read: false });
    const acted = await sdk.legacy.subscribers.markMessageActionSeen('old-3', messageId, 'primary' as never, { status: 'done' as never });
    expect(acted.data.data).toMatchObject({ cta: { action: { status: 'done', result: { type: 'primary' } } } });
    await expect(sdk.legacy.subscribers.markMessageAs('old-3', 'no-such-message', { seen: true })).rejects.toMatchObject({ response: { status: 404 } });
  });

  it('topics: create, addSubscribers, getSubscriber, removeSubscribers; integrations.getActive', async () => {
    await sdk.legacy.subscribers.identify('old-4', {});
    expect((await sdk.legacy.topics.create({ key: 'news', name: 'News' })).status).toBe(201);
    expect((await sdk.legacy.topics.addSubscribers('news', { subscribers: ['old-4'] })).data.data).toEqual({ succeeded: ['old-4'] });
    expect((await sdk.legacy.topics.getSubscriber('news', 'old-4')).data.data).toMatchObject({ topicKey: 'news', externalSubscriberId: 'old-4' });
    await sdk.legacy.topics.removeSubscribers('news', { subscribers: ['old-4'] });
    await expect(sdk.legacy.topics.getSubscriber('news', 'old-4')).rejects.toMatchObject({ response: { status: 404 } });
    await sdk.server.tidings.integrations.upsert({ providerId: 'sendgrid', channel: 'email', credentials: { apiKey: 'SG.1' } });
    const active = await sdk.legacy.integrations.getActive();
    expect(active.data.data).toMatchObject([{ providerId: 'sendgrid', credentials: {} }]);
  });

  it('broadcast: every subscriber of the environment gets the message once (more in broadcast.test.ts)', async () => {
    await sdk.legacy.subscribers.identify('old-5', { firstName: 'Ada' });
    await sdk.legacy.subscribers.identify('old-6', { firstName: 'Ada' });
    const sent = await sdk.legacy.broadcast('legacy', { payload: {} });
    expect(sent.status).toBe(201);
    expect(sent.data.data).toMatchObject({ acknowledged: true, status: 'processed', transactionId: expect.any(String) });
    expect((await sdk.server.tidings.messages.byTransaction(sent.data.data.transactionId)).map((m) => m.subscriberId).sort()).toEqual(['old-5', 'old-6']);
  });
});
