import { z } from 'zod';

export const CHANNELS = ['in_app', 'email', 'sms', 'chat', 'push'] as const;
export const channelSchema = z.enum(CHANNELS);
export type Channel = z.infer<typeof channelSchema>;

export const stepTypeSchema = z.enum([...CHANNELS, 'digest', 'delay', 'throttle', 'http', 'branch', 'custom', 'wait']);
export type StepType = z.infer<typeof stepTypeSchema>;

export const messageStatusSchema = z.enum(['sent', 'error', 'warning']);
export type MessageStatus = z.infer<typeof messageStatusSchema>;

export const actionStatusSchema = z.enum(['pending', 'done']);
export type ActionStatus = z.infer<typeof actionStatusSchema>;

export const overrideSourceSchema = z.enum(['subscriber', 'template', 'workflowOverride']);
export type OverrideSource = z.infer<typeof overrideSourceSchema>;

export const MARK_VALUES = ['read', 'seen', 'unread', 'unseen'] as const;
export const markValueSchema = z.enum(MARK_VALUES);
export type MarkValue = z.infer<typeof markValueSchema>;

/**
 * The class of a job: a claim takes every due `transactional` job before any `bulk` one. Unset on a
 * trigger or workflow, a trigger's own walks are transactional and a large audience's fan-out (with
 * its walks) is bulk, but for critical workflows, which stay transactional.
 */
export const jobPrioritySchema = z.enum(['transactional', 'bulk'], { error: 'must be transactional or bulk' });
export type JobPriority = z.infer<typeof jobPrioritySchema>;

export const timeUnitSchema = z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months']);
export type TimeUnit = z.infer<typeof timeUnitSchema>;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export const weekdaySchema = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof weekdaySchema>;

/** How urgent a workflow's notifications are, as Novu's Inbox shows them (`none` by default). */
export const SEVERITIES = ['high', 'medium', 'low', 'none'] as const;
export const severitySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof severitySchema>;

/** Where a redirect opens, as Novu's Inbox accepts it. */
export const redirectTargetSchema = z.enum(['_self', '_blank', '_parent', '_top', '_unfencedTop']);
export type RedirectTarget = z.infer<typeof redirectTargetSchema>;

export const buttonTypeSchema = z.enum(['primary', 'secondary']);
export type ButtonType = z.infer<typeof buttonTypeSchema>;

/** Chat and push provider ids a subscriber's channel settings may name. */
export const channelProviderIdSchema = z.enum([
  'slack',
  'discord',
  'msteams',
  'mattermost',
  'ryver',
  'zulip',
  'grafana-on-call',
  'getstream',
  'rocket-chat',
  'whatsapp-business',
  'telegram',
  'chat-webhook',
  'novu-slack',
  'fcm',
  'apns',
  'expo',
  'one-signal',
  'pushpad',
  'push-webhook',
  'pusher-beams',
  'appio',
  // Tidings': browser subscriptions for Web Push (Novu has no provider for it).
  'web-push',
]);
export type ChannelProviderId = z.infer<typeof channelProviderIdSchema>;

export const triggerStatusSchema = z.enum([
  'error',
  'trigger_not_active',
  'no_workflow_active_steps_defined',
  'no_workflow_steps_defined',
  'processed',
  'no_tenant_found',
  'invalid_recipients',
]);
export type TriggerStatus = z.infer<typeof triggerStatusSchema>;

/** An ISO 8601 instant as every record stores it: `Date#toISOString()` form, so text order is time order. */
export const isoInstantSchema = z.string();

export const jsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof jsonObjectSchema>;
