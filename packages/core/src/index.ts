// The app-facing API of Tidings: the engine's factory and its types, the errors, clocks, the pure
// functions an app may call on its own, and what a custom provider or storage implements. Schemas are
// in `@tidings/core/schemas`; the building blocks Tidings' own packages use, in `@tidings/core/internal`.

// The engine
export { createTidings } from './engine/create-tidings.js';
export type { Tidings, TidingsOptions } from './engine/create-tidings.js';
export type { EngineHealth, PendingWork } from './engine/tidings.js';
export type { TidingsEvents } from './events.js';
export type { WriteHealth } from './engine/runtime/write-health.js';
export type { SuppressionPage } from './engine/delivery/suppressions-api.js';
export type { RetriedStep } from './engine/walk/retry-api.js';
export type { WebhookEndpointView } from './engine/webhooks/webhooks-api.js';
export type { CallbackApplied } from './engine/delivery/provider-status.js';

// Errors and clocks
export { TidingsError, isTidingsError } from './errors.js';
export type { TidingsErrorCode, FieldIssue } from './errors.js';
export { systemClock, manualClock } from './clock.js';
export type { Clock, ManualClock } from './clock.js';

// Pure functions of the domain
export { evaluateFilters, explainFilters } from './filters/index.js';
export { isWithinSchedule, nextScheduleOpening } from './schedule/index.js';
export { resolvePreferences } from './preferences/index.js';
export { digestDueAt } from './timing/digest-due-at.js';
export { delayDueAt } from './timing/delay-due-at.js';
export { applyMarkAs } from './messages/transitions.js';

// What a custom provider, webhook transport or storage implements
export { ProviderError, CallbackRefused } from './delivery/provider.js';
export type { Provider, ProviderMessage, ProviderRecipient, ProviderResult, ProviderCallback, ProviderStatusEvent, StatusReading, SendContext, ChatAddress, EmailAddressing } from './delivery/provider.js';
export type { WebhookRequest, WebhookTransport } from './delivery/webhook-transport.js';
export type { Storage, StorageCapabilities } from './storage.js';

// The records and inputs an app reads and writes
export type {
  Channel,
  Severity,
  JsonObject,
  Credentials,
  Workflow,
  WorkflowInput,
  Step,
  StepInput,
  StepTemplate,
  Filter,
  FilterInput,
  DigestMetadata,
  DelayMetadata,
  ActionButton,
  Subscriber,
  SubscriberInput,
  SubscriberPatch,
  ChannelSettingsInput,
  Topic,
  TopicInput,
  TopicSubscription,
  Tenant,
  TenantInput,
  Integration,
  IntegrationInput,
  IntegrationPatch,
  Message,
  MessageFilter,
  Notification,
  Job,
  TriggerEvent,
  BroadcastEvent,
  TriggerResult,
  TriggerStatus,
  Recipient,
  Preferences,
  PreferencesPatch,
  Schedule,
  Cap,
  CapInput,
  Suppression,
  SuppressionInput,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointPatch,
  WebhookDelivery,
  WebhookEventType,
  RetentionPolicyInput,
  EmailAttachment,
} from './schemas/index.js';
export type { MarkAsInput, ActionInput, SnoozeInput, FeedQueryInput, MessageFilterInput } from './engine/inbox/messages-api.js';
export type { DecisionRecord, TraceEntry } from './walk/trace.js';
export type { CodeWorkflow } from './walk/code-workflow.js';
