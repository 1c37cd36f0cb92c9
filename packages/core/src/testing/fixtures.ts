import { newId } from '../ids.js';
import type { Integration, Job, Message, Notification, Subscriber, Topic, Workflow } from '../schemas/index.js';

export const ORG = 'org-test';
export const at = (iso: string) => new Date(iso).toISOString();
export const T0 = at('2026-03-02T10:00:00Z');
export const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

export function workflowRecord(env: string, overrides: Partial<Workflow> = {}): Workflow {
  const _id = overrides._id ?? newId();
  const identifier = overrides.identifier ?? `wf-${_id}`;
  return {
    _id,
    name: 'Test workflow',
    description: '',
    active: true,
    draft: false,
    critical: false,
    severity: 'none',
    preferenceSettings: {},
    tags: [],
    steps: [{ _id: 's1', active: true, shouldStopOnFail: false, filters: [], variants: [], template: { type: 'in_app', content: 'Hi' } }],
    triggers: [{ type: 'event', identifier, variables: [] }],
    identifier,
    slug: `test-workflow_wf_${_id}`,
    _organizationId: ORG,
    _environmentId: env,
    _creatorId: 'test',
    _notificationGroupId: 'general',
    deleted: false,
    deletedAt: null,
    deletedBy: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function integrationRecord(env: string, overrides: Partial<Integration> = {}): Integration {
  const _id = overrides._id ?? newId();
  return {
    _id,
    name: 'Integration',
    identifier: `int-${_id}`,
    providerId: 'console',
    channel: 'email',
    credentials: {},
    active: true,
    primary: false,
    conditions: [],
    _environmentId: env,
    _organizationId: ORG,
    deleted: false,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function topicRecord(env: string, key: string, overrides: Partial<Topic> = {}): Topic {
  return { _id: newId(), key, name: key, _environmentId: env, _organizationId: ORG, createdAt: T0, updatedAt: T0, ...overrides };
}

export function notificationRecord(env: string, overrides: Partial<Notification> = {}): Notification {
  return {
    _id: newId(),
    _environmentId: env,
    _organizationId: ORG,
    _templateId: 'wf',
    templateIdentifier: 'wf',
    transactionId: newId(),
    payload: {},
    overrides: {},
    actorId: null,
    tenantId: null,
    context: {},
    createdAt: T0,
    ...overrides,
  };
}

export function jobRecord(env: string, overrides: Partial<Job> = {}): Job {
  return ({
    id: newId(),
    environmentId: env,
    kind: 'walk',
    runAt: T0,
    attempts: 0,
    lockedBy: null,
    lockedUntil: null,
    transactionId: 'tx',
    subscriberId: 'sub',
    data: { notificationId: 'n', stepIndex: 0 },
    lastError: null,
    ...overrides,
  }) as Job;
}

export function messageRecord(env: string, subscriber: Pick<Subscriber, '_id' | 'subscriberId'>, overrides: Partial<Message> = {}): Message {
  return {
    _id: newId(),
    _templateId: 'wf',
    _environmentId: env,
    _messageTemplateId: null,
    _organizationId: ORG,
    _notificationId: 'n',
    _subscriberId: subscriber._id,
    subscriberId: subscriber.subscriberId,
    templateIdentifier: 'wf',
    severity: 'none',
    createdAt: T0,
    deliveredAt: [T0],
    content: 'Hello',
    transactionId: 'tx',
    channel: 'in_app',
    read: false,
    seen: false,
    archived: false,
    cta: {},
    _feedId: null,
    status: 'sent',
    payload: {},
    tags: [],
    ...overrides,
  };
}
