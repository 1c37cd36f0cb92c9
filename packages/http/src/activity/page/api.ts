/// <reference lib="dom" />
// The page's one way to the API: every call carries the API key the user gave, kept in the tab's
// sessionStorage (gone when the tab closes). A 401 forgets it and asks again.
import type { Channel, DecisionRecord, RetriedStep, Tidings } from '@tidings/core';
import type { MessageStatus, SkippedStep, WorkflowRevision } from '@tidings/core/schemas';
import type { Filters } from './route.js';

/** A message as the activity list has it (see activity-list.ts). */
export interface ActivityMessage {
  readonly _id: string;
  readonly channel: Channel;
  readonly status: MessageStatus;
  readonly createdAt: string;
  readonly stepIndex: number;
  readonly subject?: string;
  readonly content: string;
  readonly providerId?: string;
  readonly providerMessageId?: string;
  readonly errorId?: string;
  readonly errorText?: string;
}

/** An email message as it was sent. */
export interface SentEmail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly preheader: string | null;
  readonly layoutId: string | null;
}

/** A channel step that made no message (skipped by a preference, filter, schedule or cap), as the engine lists it. */
export type { SkippedStep };

/** One notification as one subscriber had it. */
export interface ActivityItem {
  readonly _id: string;
  readonly transactionId: string;
  readonly templateIdentifier: string;
  readonly createdAt: string;
  readonly subscriber: { readonly subscriberId: string; readonly firstName?: string; readonly lastName?: string; readonly email?: string };
  readonly template?: { readonly name: string };
  readonly payload: Record<string, unknown>;
  readonly messages: readonly ActivityMessage[];
  readonly skipped: readonly SkippedStep[];
}

export interface ActivityPage {
  readonly data: readonly ActivityItem[];
  readonly page: number;
  readonly hasMore: boolean;
}

/** What changed from one revision of a workflow to another, as lines for people. */
export interface RevisionDiff {
  readonly from: number;
  readonly to: number;
  readonly lines: readonly string[];
}
export type { WorkflowRevision };

export type Pending = Awaited<ReturnType<Tidings['pending']>>;
export type PendingJob = Pending['jobs'][number];
export type { DecisionRecord };

const KEY = 'tidings.apiKey';
export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const saveKey = (key: string): void => sessionStorage.setItem(KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY);

const configured = document.querySelector<HTMLMetaElement>('meta[name="tidings-api"]')?.content ?? '..';
/** The API's root, always with a trailing slash so paths resolve under it. */
const base = new URL(configured.endsWith('/') ? configured : `${configured}/`, location.href);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onRefused: () => void = () => undefined;
/** Called when the API refuses the key (401). */
export const whenKeyRefused = (handler: () => void): void => {
  onRefused = handler;
};

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const key = storedKey();
  if (key === null) throw new ApiError(401, 'No API key');
  const response = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `ApiKey ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = text === '' ? null : (JSON.parse(text) as { data?: unknown; message?: unknown });
  if (response.status === 401) onRefused();
  if (!response.ok) throw new ApiError(response.status, typeof json?.message === 'string' ? json.message : `The API answered ${response.status}`);
  return json as T;
}

const enc = encodeURIComponent;

function activityQuery(filters: Filters, page: number, limit: number): string {
  const q = new URLSearchParams({ page: String(page), limit: String(limit) });
  if (filters.workflow) q.set('templates', filters.workflow);
  if (filters.subscriber) q.set('subscriberIds', filters.subscriber);
  if (filters.transaction) q.set('transactionId', filters.transaction);
  if (filters.channel) q.set('channels', filters.channel);
  if (filters.status) q.set('status', filters.status);
  if (filters.after) q.set('after', new Date(filters.after).toISOString());
  if (filters.before) q.set('before', new Date(filters.before).toISOString());
  return q.toString();
}

export const api = {
  activity: (filters: Filters, page: number, limit = 20) => call<ActivityPage>('GET', `v1/notifications?${activityQuery(filters, page, limit)}`),
  explain: async (transactionId: string, subscriberId: string) => (await call<{ data: DecisionRecord[] }>('GET', `v1/notifications/${enc(transactionId)}/explain?subscriberId=${enc(subscriberId)}`)).data,
  pending: async (filter: { transactionId?: string; subscriberId?: string } = {}) =>
    (await call<{ data: Pending }>('GET', `v1/jobs?${new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined)).toString()}`)).data,
  retry: async (transactionId: string, subscriberId: string) => (await call<{ data: { retried: RetriedStep[] } }>('POST', `v1/notifications/${enc(transactionId)}/retry`, { subscriberId })).data,
  cancel: (transactionId: string) => call<unknown>('DELETE', `v1/events/trigger/${enc(transactionId)}`),
  history: async (workflowId: string, limit = 20) => (await call<{ data: WorkflowRevision[] }>('GET', `v1/workflows/${enc(workflowId)}/revisions?limit=${limit}`)).data,
  diff: async (workflowId: string, from: number, to: number) => (await call<{ data: RevisionDiff }>('GET', `v1/workflows/${enc(workflowId)}/diff?from=${from}&to=${to}`)).data,
  rollback: (workflowId: string, revision: number) => call<unknown>('POST', `v1/workflows/${enc(workflowId)}/rollback`, { revision }),
  email: async (subscriberId: string, messageId: string) => (await call<{ data: SentEmail }>('GET', `v1/subscribers/${enc(subscriberId)}/messages/${enc(messageId)}/email`)).data,
};

/** A message that failed for good and no provider took: what a retry sends again. */
export const retryable = (m: ActivityMessage): boolean => m.status === 'error' && m.providerMessageId === undefined;
