import type { CodeStepType } from '@tidings/core/internal';
import type { FieldIssue } from './schema.js';

const isText = (value: unknown) => typeof value === 'string' && value.length > 0;

/** The members each channel's outputs must hold, as @novu/framework's output schemas require them. */
const required: Partial<Record<CodeStepType, readonly string[]>> = { email: ['subject', 'body'], sms: ['body'], chat: ['body'], push: ['subject', 'body'] };

/** What is wrong with a channel step's outputs, field by field (empty when nothing). */
export function channelOutputIssues(type: CodeStepType, outputs: unknown): FieldIssue[] {
  if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs)) return [{ path: 'outputs', message: 'must be an object' }];
  const record = outputs as Record<string, unknown>;
  if (type === 'in_app') return isText(record['subject']) || isText(record['body']) ? [] : [{ path: 'outputs.body', message: 'an in-app step needs a subject or a body' }];
  return (required[type] ?? []).filter((field) => !isText(record[field])).map((field) => ({ path: `outputs.${field}`, message: 'is required (a non-empty string)' }));
}
