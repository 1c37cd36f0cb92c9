export { workflow, type Workflow } from './workflow.js';
export { novuWorkflows, type NovuWorkflow } from './novu-workflows.js';
export { Client, type ClientOptions, type ClientLogger, type DiscoveredWorkflow } from './client.js';
export type { Schema, JsonSchema, ZodLike } from './schema.js';
export type { TriggerRequest, TriggerResult } from './trigger.js';
export type * from './types.js';
export type { HttpRequest, HttpStepFailure, HttpStepFn, HttpStepOptions, HttpStepResult } from './http-step.js';
