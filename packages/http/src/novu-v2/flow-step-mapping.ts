import type { StepTemplate, Step } from '@tidings/core';
import { HTTP_STEP_MAX_TIMEOUT_MS, type HttpStepInput, type StepType } from '@tidings/core/schemas';
import { z } from 'zod';

/**
 * Novu's `throttle`, `http_request` and `custom` steps (v2 workflows) as Tidings steps, and back:
 * - throttle (fixed): amount, unit, threshold → metadata { amount, unit, limit }; throttleKey
 *   `{{payload.path}}` (or `payload.path`) → metadata.key. A dynamic window is refused by name.
 * - http_request: method, url, headers [{ key, value }] → http { method, url, headers };
 *   body (text, or [{ key, value }] → a JSON object); timeout; continueOnFailure;
 *   responseBodySchema → http.responseSchema when enforceSchemaValidation is true (without it Novu
 *   only shows it in its editor, and Tidings does not keep it). HEAD and OPTIONS are refused.
 * - custom: its control values (the SDK's `{ custom: { … } }`, or the values themselves, but skip) →
 *   template.data, rendered when the step runs and kept as `steps.<stepId>.*` for the steps after it;
 *   shown back as `{ custom: { … } }`.
 */

const skipSchema = z.record(z.string(), z.unknown());
const pairSchema = z.strictObject({ key: z.string().trim().min(1, 'must not be empty'), value: z.string() });

export const throttleControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  type: z.enum(['fixed', 'dynamic']).refine((t) => t === 'fixed', 'only "fixed" is supported: a Tidings throttle window has a set amount and unit').optional(),
  amount: z.number().positive('must be a positive number').optional(),
  unit: z.enum(['seconds', 'minutes', 'hours', 'days', 'weeks'], 'must be seconds, minutes, hours, days or weeks').optional(),
  threshold: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
  throttleKey: z.string().optional(),
  dynamicKey: z.string().refine(() => false, 'is not supported: a Tidings throttle window has a set amount and unit').optional(),
});

export const httpRequestControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']).refine((m) => m !== 'HEAD' && m !== 'OPTIONS', 'HEAD and OPTIONS are not supported: a Tidings http step sends GET, POST, PUT, PATCH or DELETE').optional(),
  url: z.string().trim().min(1, 'must not be empty').max(2048, 'must be at most 2,048 characters'),
  headers: z.array(pairSchema).max(50, 'must hold at most 50 headers').optional(),
  body: z.union([z.string().max(65_536, 'must be at most 65,536 characters'), z.array(pairSchema).max(100, 'must hold at most 100 members')]).optional(),
  responseBodySchema: z.record(z.string(), z.unknown()).optional(),
  enforceSchemaValidation: z.boolean().optional(),
  continueOnFailure: z.boolean().optional(),
  timeout: z.number().int('must be a whole number').min(100, 'must be at least 100').max(HTTP_STEP_MAX_TIMEOUT_MS, `must be at most ${HTTP_STEP_MAX_TIMEOUT_MS}`).optional(),
});

/** A custom step's controls: any values (kept for the steps after it), and skip. */
export const customControlsSchema = z.record(z.string(), z.unknown());

export type ThrottleControls = z.output<typeof throttleControlsSchema>;
export type HttpRequestControls = z.output<typeof httpRequestControlsSchema>;

/** Novu's step type of a Tidings one (`http` is Novu's `http_request`; a `branch`, which Novu has not, shows as `custom`), and back. */
export const novuTypeOf = (type: StepType): string => (type === 'http' ? 'http_request' : type === 'branch' ? 'custom' : type);
export const tidingsTypeOf = (type: string): string => (type === 'http_request' ? 'http' : type);

const THROTTLE_KEY = /^(?:\{\{\s*payload\.([\w.-]+)\s*\}\}|payload\.([\w.-]+))$/;

type Issue = (member: string, message: string) => void;
type Mapped = { template: StepTemplate; metadata?: Step['metadata']; http?: HttpStepInput };

/** A throttle, http_request or custom step's controls as the Tidings step's parts; what does not map is added to `issue`. */
export function flowStepFromNovu(type: 'throttle' | 'http_request' | 'custom', controls: Record<string, unknown>, issue: Issue): Mapped {
  if (type === 'throttle') {
    const c = controls as ThrottleControls;
    for (const member of ['amount', 'unit', 'threshold'] as const) if (c[member] === undefined) issue(member, 'is required: a Tidings throttle needs amount, unit and threshold');
    let key: string | undefined;
    if (c.throttleKey !== undefined && c.throttleKey.trim() !== '') {
      const match = THROTTLE_KEY.exec(c.throttleKey.trim());
      if (!match) issue('throttleKey', 'must name a payload member as {{payload.path}}: Tidings throttles per value of one payload member');
      key = match?.[1] ?? match?.[2];
    }
    return { template: { type: 'throttle' }, metadata: { amount: c.amount ?? 1, unit: c.unit ?? 'minutes', limit: c.threshold ?? 1, ...(key !== undefined && { key }) } };
  }
  if (type === 'http_request') {
    const c = controls as HttpRequestControls;
    if (c.enforceSchemaValidation === true && !c.responseBodySchema) issue('responseBodySchema', 'is required when enforceSchemaValidation is true');
    const body = Array.isArray(c.body) ? Object.fromEntries(c.body.map((p) => [p.key, p.value])) : c.body;
    const http: HttpStepInput = {
      method: (c.method ?? 'POST') as NonNullable<HttpStepInput['method']>,
      url: c.url,
      ...(c.headers && c.headers.length > 0 && { headers: Object.fromEntries(c.headers.map((p) => [p.key, p.value])) }),
      ...(body !== undefined && { body }),
      ...(c.enforceSchemaValidation === true && c.responseBodySchema && { responseSchema: c.responseBodySchema }),
      ...(c.timeout !== undefined && { timeout: c.timeout }),
      ...(c.continueOnFailure !== undefined && { continueOnFailure: c.continueOnFailure }),
    };
    return { template: { type: 'http' }, http };
  }
  const { skip: _skip, ...rest } = controls;
  const wrapped = rest['custom'];
  const data = Object.keys(rest).length === 1 && typeof wrapped === 'object' && wrapped !== null && !Array.isArray(wrapped) ? (wrapped as Record<string, unknown>) : rest;
  return { template: { type: 'custom', data } };
}

/**
 * A stored branch step that an update names by `_id` as a `custom` step with the controls it was
 * shown with: kept as it is. Other controls for it are an issue (a branch is changed through
 * /v1/workflows); null when the step is no stored branch.
 */
export function keptBranch(controls: Record<string, unknown>, stored: Step | undefined, issue: Issue): Step | null {
  if (stored?.template.type !== 'branch' || !stored.branch) return null;
  const shown = (controls['custom'] as Record<string, unknown> | undefined)?.['branch'];
  if (JSON.stringify(shown) !== JSON.stringify(stored.branch)) issue('custom.branch', 'is a Tidings branch step: it is kept as it is through /v2/workflows, and changed through /v1/workflows');
  return stored;
}

/** A stored throttle, http, custom or branch step's control values, as Novu shows them; null for any other type. */
export function flowControlsOf(step: Pick<Step, 'template' | 'metadata' | 'http' | 'branch'>): Record<string, unknown> | null {
  const t = step.template;
  if (t.type === 'branch') return { custom: { branch: step.branch } };
  if (t.type === 'throttle') {
    const m = step.metadata as { amount: number; unit: string; limit: number; key?: string };
    return { type: 'fixed', amount: m.amount, unit: m.unit, threshold: m.limit, ...(m.key !== undefined && { throttleKey: `{{payload.${m.key}}}` }) };
  }
  if (t.type === 'custom') return { custom: { ...(t.data ?? {}) } };
  if (t.type !== 'http' || !step.http) return null;
  const h = step.http;
  const pairs = (record: Record<string, unknown>) => Object.entries(record).map(([key, value]) => ({ key, value: typeof value === 'string' ? value : JSON.stringify(value) }));
  return {
    method: h.method,
    url: h.url,
    headers: pairs(h.headers ?? {}),
    ...(h.body !== undefined && { body: typeof h.body === 'string' ? h.body : pairs(h.body) }),
    ...(h.responseSchema && { responseBodySchema: h.responseSchema, enforceSchemaValidation: true }),
    ...(h.timeout !== undefined && { timeout: h.timeout }),
    continueOnFailure: h.continueOnFailure ?? false,
  };
}
