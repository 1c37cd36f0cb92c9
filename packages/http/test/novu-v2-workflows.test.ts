/**
 * `/v2/workflows` driven by Novu's server SDK, `@novu/api` (pinned through the catalog), against a real
 * `tidings serve` (SQLite, over a port): the SDK checks every answer against its own zod models, so a
 * shape it would not accept fails here. Novu's e2e tests upsert-workflow.e2e.ts and
 * workflow.controller.e2e.ts (apps/api/src/app/workflows-v2) are the reference for the flow.
 */
import { Novu } from '@novu/api';
import type { WorkflowResponseDto } from '@novu/api/models/components';
import { ErrorDto, ValidationErrorDto } from '@novu/api/models/errors';
import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.js';
import { rejection, sdkServer } from './sdk-server.js';

const KEY = 'tid_v2_workflows_key';

const sdk = sdkServer('v2-workflows', KEY);
const { http } = sdk;

/** Novu's upsert-workflow.e2e.ts helper: a response turned into the update body, steps by id. */
const toUpdate = (workflow: WorkflowResponseDto) => ({
  ...workflow,
  steps: workflow.steps.map((step) => ({ id: step.id, name: step.name, type: step.type, controlValues: step.controls.values })),
});

const STEPS = [
  {
    name: 'Notify in app',
    type: 'in_app' as const,
    controlValues: {
      subject: 'New comment',
      body: '{{ payload.author }} commented on {{ payload.postId }}',
      avatar: 'https://example.com/avatar.png',
      redirect: { url: '/posts/{{ payload.postId }}', target: '_self' as const },
      primaryAction: { label: 'Reply', redirect: { url: '/posts/{{ payload.postId }}/reply' } },
      skip: { '==': [{ var: 'payload.muted' }, true] },
    },
  },
  { name: 'Email', type: 'email' as const, controlValues: { subject: 'A comment from {{ payload.author }}', body: '<p>{{ payload.author }} commented.</p>' } },
  { name: 'Digest', type: 'digest' as const, controlValues: { amount: 5, unit: 'minutes' as const, digestKey: '{{payload.postId}}', lookBackWindow: { amount: 30, unit: 'seconds' as const } } },
  { name: 'Wait', type: 'delay' as const, controlValues: { amount: 1, unit: 'hours' as const } },
];

describe('/v2/workflows with @novu/api', () => {
  it('create, get, list, update, trigger and delete a workflow of in-app, email, digest and delay steps', async () => {
    const { result: created } = await sdk.novu.workflows.create({ name: 'Comment digest', workflowId: 'comment-digest', active: true, tags: ['social'], steps: STEPS });
    expect(created).toMatchObject({ workflowId: 'comment-digest', name: 'Comment digest', active: true, status: 'ACTIVE', origin: 'novu-cloud', tags: ['social'] });
    expect(created.slug).toBe(`comment-digest_wf_${created.id}`);
    expect(created.steps.map((s) => [s.type, s.stepId, s.name])).toEqual([
      ['in_app', 'notify-in-app', 'Notify in app'],
      ['email', 'email', 'Email'],
      ['digest', 'digest', 'Digest'],
      ['delay', 'wait', 'Wait'],
    ]);
    const [inApp, email, digest, delay] = created.steps;
    expect(inApp!.controls.values).toMatchObject(STEPS[0]!.controlValues);
    expect(email!.controls.values).toMatchObject({ subject: 'A comment from {{ payload.author }}', body: '<p>{{ payload.author }} commented.</p>', editorType: 'html' });
    expect(digest!.controls.values).toMatchObject({ type: 'regular', amount: 5, unit: 'minutes', digestKey: '{{payload.postId}}', lookBackWindow: { amount: 30, unit: 'seconds' } });
    expect(delay!.controls.values).toMatchObject({ type: 'regular', amount: 1, unit: 'hours' });
    expect(created.steps.every((s) => s.workflowId === 'comment-digest' && s.workflowDatabaseId === created.id && s.issues === undefined)).toBe(true);

    // Stored as Tidings steps: skip "muted == true" became a filter that runs the step unless it holds.
    const stored = (await sdk.server.tidings.workflows.get('comment-digest'))!;
    expect(stored.steps[0]).toMatchObject({
      name: 'Notify in app',
      uuid: 'notify-in-app',
      template: { type: 'in_app', content: '{{ payload.author }} commented on {{ payload.postId }}', subject: 'New comment', cta: { type: 'redirect', data: { url: '/posts/{{ payload.postId }}', target: '_self' }, action: { buttons: [{ type: 'primary', content: 'Reply', url: '/posts/{{ payload.postId }}/reply' }] } } },
      filters: [{ isNegated: true, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 'muted', operator: 'EQUAL', value: 'true' }] }],
    });
    expect(stored.steps[2]!.metadata).toEqual({ type: 'regular', amount: 5, unit: 'minutes', digestKey: 'postId', backoff: true, backoffAmount: 30, backoffUnit: 'seconds' });
    expect(stored.steps[3]!.metadata).toEqual({ type: 'regular', amount: 1, unit: 'hours' });

    // Get by workflowId, by internal id and by slug: the same answer.
    for (const ref of [created.workflowId, created.id, created.slug]) expect((await sdk.novu.workflows.get(ref)).result).toEqual(created);
    expect((await sdk.novu.workflows.steps.retrieve('comment-digest', 'digest')).result).toMatchObject({ stepId: 'digest', type: 'digest', controlValues: { amount: 5, unit: 'minutes' } });

    const { result: list } = await sdk.novu.workflows.list({});
    expect(list.totalCount).toBe(1);
    expect(list.workflows[0]).toMatchObject({ workflowId: 'comment-digest', status: 'ACTIVE', stepTypeOverviews: ['in_app', 'email', 'digest', 'delay'] });
    expect((await sdk.novu.workflows.list({ query: 'COMMENT', tags: ['social', 'other'] })).result.totalCount).toBe(1);
    expect((await sdk.novu.workflows.list({ tags: ['other'] })).result.totalCount).toBe(0);
    expect((await sdk.novu.workflows.list({ status: ['INACTIVE'] })).result.totalCount).toBe(0);

    // Update: the email's subject changes, the in-app step's skip condition goes; step ids stay.
    const body = toUpdate(created);
    body.steps[1]!.controlValues = { ...body.steps[1]!.controlValues, subject: 'Comments are waiting' };
    const { skip: _skip, ...inAppControls } = body.steps[0]!.controlValues as Record<string, unknown>;
    body.steps[0]!.controlValues = inAppControls;
    const { result: updated } = await sdk.novu.workflows.update({ ...body, active: true }, created.workflowId);
    expect(updated.steps.map((s) => s.id)).toEqual(created.steps.map((s) => s.id));
    expect(updated.steps.map((s) => s.stepId)).toEqual(created.steps.map((s) => s.stepId));
    expect(updated.steps[1]!.controls.values).toMatchObject({ subject: 'Comments are waiting' });
    expect(updated.steps[0]!.controls.values).not.toHaveProperty('skip');
    expect((await sdk.server.tidings.workflows.get('comment-digest'))!.steps[0]!.filters).toEqual([]);
    expect(updated.createdAt).toBe(created.createdAt);

    // Trigger through the SDK: the in-app message is in the subscriber's feed.
    const { result: triggered } = await sdk.novu.trigger({ workflowId: 'comment-digest', to: { subscriberId: 'ada', firstName: 'Ada' }, payload: { author: 'Grace', postId: 'p1' } });
    expect(triggered.status).toBe('processed');
    const message = await eventually(async () => (await http('GET', '/v1/subscribers/ada/notifications/feed')).body.data[0], 'the in-app message', 10_000);
    expect(message).toMatchObject({ channel: 'in_app', content: 'Grace commented on p1', subject: 'New comment', transactionId: triggered.transactionId, cta: { type: 'redirect', data: { url: '/posts/p1' } } });

    // Delete: 204, then the workflow is gone (404 from get, and from a second delete).
    await sdk.novu.workflows.delete(created.workflowId);
    const gone = await rejection(sdk.novu.workflows.get(created.workflowId));
    expect(gone).toBeInstanceOf(ErrorDto);
    expect((gone as ErrorDto).statusCode).toBe(404);
    expect((await http('DELETE', `/v2/workflows/${created.workflowId}`)).status).toBe(404);
    expect((await sdk.novu.workflows.list({})).result).toEqual({ workflows: [], totalCount: 0 });
  });

  it('skip is negated into the step filters: a step whose skip holds is skipped, the others run', async () => {
    await sdk.novu.workflows.create({
      name: 'Alerts',
      workflowId: 'alerts',
      active: true,
      steps: [
        { name: 'Quiet unless urgent', type: 'in_app', controlValues: { body: 'urgent: {{ payload.text }}', skip: { and: [{ '!=': [{ var: 'payload.level' }, 'urgent'] }, { '<': [{ var: 'payload.score' }, 10] }] } } },
        { name: 'Always', type: 'in_app', controlValues: { body: 'always: {{ payload.text }}' } },
      ],
    });
    const feed = async (subscriberId: string) => ((await http('GET', `/v1/subscribers/${subscriberId}/notifications/feed`)).body.data as { content: string }[]).map((m) => m.content).sort();
    await sdk.novu.trigger({ workflowId: 'alerts', to: 'low', payload: { level: 'info', score: 3, text: 'a' } });
    await sdk.novu.trigger({ workflowId: 'alerts', to: 'urgent', payload: { level: 'urgent', score: 3, text: 'b' } });
    await sdk.novu.trigger({ workflowId: 'alerts', to: 'high', payload: { level: 'info', score: 50, text: 'c' } });
    expect(await feed('low')).toEqual(['always: a']);
    expect(await feed('urgent')).toEqual(['always: b', 'urgent: b']);
    expect(await feed('high')).toEqual(['always: c', 'urgent: c']);
  });

  it('a skip condition with no Tidings filter equivalent is a 422 naming the field', async () => {
    const steps = [
      { name: 'In-app', type: 'in_app' as const, controlValues: { body: 'hi' } },
      { name: 'Contains', type: 'in_app' as const, controlValues: { body: 'hi', skip: { in: ['spam', { var: 'payload.title' }] } } },
    ];
    const error = await rejection(sdk.novu.workflows.create({ name: 'Unmappable', workflowId: 'unmappable', steps }));
    expect(error).toBeInstanceOf(ValidationErrorDto);
    const { statusCode, errors } = error as ValidationErrorDto;
    expect(statusCode).toBe(422);
    expect(Object.keys(errors)).toEqual(['steps[1].controlValues.skip']);
    expect(errors['steps[1].controlValues.skip']!.messages[0]).toMatch(/does not map onto Tidings step filters: in: "in" on a text \(substring, "contains"\)/);

    const nested = await http('POST', '/v2/workflows', { name: 'N', steps: [{ name: 'S', type: 'sms', controlValues: { body: 'x', skip: { or: [{ and: [{ '==': [{ var: 'payload.a' }, 1] }] }] } } }] });
    expect(nested.status).toBe(422);
    expect(nested.body.errors['steps[0].controlValues.skip'].messages[0]).toContain('or[0].and: "and" nested this deep does not map');
    const unknownRoot = await http('POST', '/v2/workflows', { name: 'N', steps: [{ name: 'S', type: 'sms', controlValues: { skip: { '==': [{ var: 'steps.digest.events' }, 1] } } }] });
    expect(unknownRoot.body.errors['steps[0].controlValues.skip'].messages[0]).toContain('the variable "steps.digest.events" does not map');
    expect(await sdk.server.tidings.workflows.list()).toEqual([]);
  });

  it('validation errors name the Novu field: step type, unknown control, amount, digest key, cron, layouts, a workflowId in use', async () => {
    const answer = await http('POST', '/v2/workflows', {
      name: 'Invalid',
      steps: [
        { name: 'Tool', type: 'tool', controlValues: {} },
        { name: 'SMS', type: 'sms', controlValues: { bodyy: 'typo' } },
        { name: 'Digest', type: 'digest', controlValues: { amount: -1, unit: 'minutes' } },
        { name: 'Delay', type: 'delay', controlValues: { amount: 5 } },
        { name: '', type: 'push' },
      ],
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['steps[0].type', 'steps[1].controlValues.bodyy', 'steps[2].controlValues.amount', 'steps[3].controlValues.unit', 'steps[4].name']);
    expect(answer.body.errors['steps[0].type'].messages[0]).toContain('is not a step type Tidings has');
    expect(answer.body.errors['steps[1].controlValues.bodyy'].messages).toEqual(['is not a known member']);

    const refusedBySdk = async (steps: Parameters<Novu['workflows']['create']>[0]['steps']) => {
      const error = await rejection(sdk.novu.workflows.create({ name: 'Invalid', workflowId: 'invalid', steps }));
      expect(error).toBeInstanceOf(ValidationErrorDto);
      return (error as ValidationErrorDto).errors;
    };
    expect(Object.keys(await refusedBySdk([{ name: 'D', type: 'digest', controlValues: { amount: 1, unit: 'hours', digestKey: 'postId' } }]))).toEqual(['steps[0].controlValues.digestKey']);
    expect(Object.keys(await refusedBySdk([{ name: 'D', type: 'digest', controlValues: { type: 'timed', cron: '0 9 * * *' } }]))).toEqual(['steps[0].controlValues.cron']);
    expect(Object.keys(await refusedBySdk([{ name: 'D', type: 'delay', controlValues: { type: 'timed' } }]))).toEqual(['steps[0].controlValues.type']);
    expect(Object.keys(await refusedBySdk([{ name: 'E', type: 'email', controlValues: { subject: 's', body: '', layoutId: 'brand' } }]))).toEqual(['steps[0].controlValues.layoutId']);
    const maily = JSON.stringify({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'hi' }] }] });
    expect(Object.keys(await refusedBySdk([{ name: 'E', type: 'email', controlValues: { subject: 's', body: maily } }]))).toEqual(['steps[0].controlValues.body']);
    // The engine's own checks come back under the control they came from.
    const syntax = await refusedBySdk([{ name: 'I', type: 'in_app', controlValues: { body: 'Hi {{ payload.name ' } }]);
    expect(Object.keys(syntax)).toEqual(['steps[0].controlValues.body']);
    expect(syntax['steps[0].controlValues.body']!.messages[0]).toContain('template does not parse');

    // Without a workflowId, the slug of the name, made unique as Novu does.
    expect((await http('POST', '/v2/workflows', { name: 'Big News', steps: [] })).body.data.workflowId).toBe('big-news');
    expect((await http('POST', '/v2/workflows', { name: 'Big news!', steps: [] })).body.data.workflowId).toBe('big-news-2');

    await sdk.novu.workflows.create({ name: 'Taken', workflowId: 'taken', steps: [] });
    const taken = await rejection(sdk.novu.workflows.create({ name: 'Taken again', workflowId: 'taken', steps: [] }));
    expect(taken).toBeInstanceOf(ErrorDto);
    expect((taken as ErrorDto).statusCode).toBe(400);
    expect(((await sdk.novu.workflows.get('taken')).result).name).toBe('Taken');
    const renamed = await rejection(sdk.novu.workflows.update({ name: 'Taken', workflowId: 'other', steps: [], preferences: {} }, 'taken'));
    expect((renamed as ValidationErrorDto).errors).toHaveProperty(['workflowId']);
    expect((await rejection(sdk.novu.workflows.update({ name: 'X', steps: [], preferences: {} }, 'missing')) as ErrorDto).statusCode).toBe(404);
  });

  it('preferences: readOnly is critical, channels are the default channel settings; patch changes only what it names', async () => {
    const { result } = await sdk.novu.workflows.create({
      name: 'Security',
      workflowId: 'security',
      active: true,
      steps: [{ name: 'In-app', type: 'in_app', controlValues: { body: 'New login' } }],
      preferences: { workflow: { all: { enabled: true, readOnly: false }, channels: { email: { enabled: false } } } },
    });
    expect(result.preferences.default.channels['email']).toEqual({ enabled: false });
    expect(result.preferences.default.channels['in_app']).toEqual({ enabled: true });
    expect((await sdk.server.tidings.workflows.get('security'))!.preferenceSettings).toEqual({ email: false });
    const { result: critical } = await sdk.novu.workflows.update({ ...toUpdate(result), preferences: { workflow: { all: { enabled: true, readOnly: true }, channels: {} } } }, 'security');
    expect(critical.preferences.default.all).toEqual({ enabled: true, readOnly: true });
    expect((await sdk.server.tidings.workflows.get('security'))!.critical).toBe(true);
    const off = await rejection(sdk.novu.workflows.update({ ...toUpdate(result), preferences: { workflow: { all: { enabled: false }, channels: {} } } }, 'security'));
    expect(Object.keys((off as ValidationErrorDto).errors)).toEqual(['preferences.workflow.all.enabled']);

    const { result: patched } = await sdk.novu.workflows.patch({ active: false, tags: ['security'] }, 'security');
    expect(patched).toMatchObject({ active: false, status: 'INACTIVE', tags: ['security'], name: 'Security' });
    expect(patched.steps.map((s) => s.id)).toEqual(result.steps.map((s) => s.id));
  });

  it('a workflow stored through /v1/workflows reads through /v2, and what no control shows survives an update', async () => {
    const v1 = await http('POST', '/v1/workflows', {
      name: 'Reminders',
      triggers: [{ identifier: 'reminders' }],
      steps: [
        { template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'sendAt' } },
        {
          name: 'Remind',
          template: { type: 'in_app', content: 'Reminder', variables: [{ name: 'topic', defaultValue: 'your day' }] },
          filters: [{ value: 'AND', children: [{ on: 'payload', field: 'title', operator: 'LIKE', value: '%meeting%' }] }],
        },
      ],
    });
    expect(v1.status).toBe(201);
    const { result } = await sdk.novu.workflows.get('reminders');
    expect(result.steps.map((s) => [s.name, s.stepId])).toEqual([['Delay Step 1', 'delay-step-1'], ['Remind', 'remind']]);
    expect(result.steps[0]!.issues?.controls?.['type']?.[0]).toMatchObject({ issueType: 'UNSUPPORTED_PROPERTY', severity: 'warning' });
    expect(result.steps[1]!.issues?.controls?.['skip']?.[0]?.message).toContain('JSON Logic cannot express');
    expect(result.steps[1]!.controls.values).not.toHaveProperty('skip');

    const { result: updated } = await sdk.novu.workflows.update({ ...toUpdate(result), active: true, name: 'Reminders v2' }, 'reminders');
    expect(updated.name).toBe('Reminders v2');
    const stored = (await sdk.server.tidings.workflows.get('reminders'))!;
    expect(stored.steps[0]!.metadata).toEqual({ type: 'scheduled', delayPath: 'sendAt' });
    expect(stored.steps[1]!.filters[0]!.children[0]).toMatchObject({ operator: 'LIKE', value: '%meeting%' });
    expect(stored.steps[1]!.template.variables).toEqual([{ name: 'topic', defaultValue: 'your day' }]);
    expect(stored.steps.map((s) => s.uuid)).toEqual(['delay-step-1', 'remind']);
  });
  it('workflows.steps.generatePreview renders the stored step for the preview payload (the email in its layout), and refuses unsaved controls by name', async () => {
    await sdk.novu.workflows.create({ name: 'Preview me', workflowId: 'preview-me', active: true, steps: [STEPS[0]!, STEPS[1]!] });
    const { result: email } = await sdk.novu.workflows.steps.generatePreview({
      workflowId: 'preview-me',
      stepId: 'email',
      generatePreviewRequestDto: { previewPayload: { subscriber: { firstName: 'Sam' }, payload: { author: 'Ada' } } },
    });
    expect(email.result).toMatchObject({ type: 'email', preview: { subject: 'A comment from Ada' } });
    const body = (email.result as { preview: { body: string } }).preview.body;
    expect(body).toMatch(/^<!doctype html>/i);
    expect(body).toContain('<p>Ada commented.</p>');
    expect(email.previewPayloadExample).toMatchObject({ subscriber: { firstName: 'Sam' }, payload: { author: 'Ada' } });
    const { result: inApp } = await sdk.novu.workflows.steps.generatePreview({ workflowId: 'preview-me', stepId: 'notify-in-app', generatePreviewRequestDto: { previewPayload: { payload: { author: 'Ada', postId: 'p1' } } } });
    expect(inApp.result).toMatchObject({ type: 'in_app', preview: { subject: 'New comment', body: 'Ada commented on p1' } });
    const refused = await rejection(sdk.novu.workflows.steps.generatePreview({ workflowId: 'preview-me', stepId: 'email', generatePreviewRequestDto: { controlValues: { subject: 'Draft' } } }));
    expect(refused).toBeInstanceOf(ValidationErrorDto);
    expect(JSON.stringify(refused)).toContain('controlValues');
    const missing = await rejection(sdk.novu.workflows.steps.generatePreview({ workflowId: 'preview-me', stepId: 'nope', generatePreviewRequestDto: {} }));
    expect(missing).toBeInstanceOf(ErrorDto);
  });
});
