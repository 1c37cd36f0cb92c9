import type { Tidings, Workflow } from '@tidings/core';
import { z } from 'zod';
import { invalid, parseOr422 } from './workflow-schemas.js';

/** Novu's GeneratePreviewRequestDto: the stored step is rendered for `previewPayload`'s subscriber and payload. */
const stepPreviewSchema = z.object({
  controlValues: z.record(z.string(), z.unknown()).nullable().optional(),
  previewPayload: z
    .object({
      subscriber: z.record(z.string(), z.unknown()).optional(),
      payload: z.record(z.string(), z.unknown()).optional(),
    })
    .passthrough()
    .optional(),
});

const SUBSCRIBER_MEMBERS = ['subscriberId', 'firstName', 'lastName', 'email', 'phone', 'avatar', 'locale', 'data'] as const;

/**
 * `POST /v2/workflows/{workflowId}/step/{stepId}/preview` (`workflows.steps.generatePreview`): the
 * step as `tidings.preview` renders it, in Novu's GeneratePreviewResponseDto. Novu's dashboard may
 * send unsaved `controlValues`; Tidings previews what is stored, so those are refused by name.
 */
export async function stepPreview(tidings: Tidings, workflow: Workflow, index: number, body: unknown) {
  const { controlValues, previewPayload } = parseOr422(stepPreviewSchema, body, 'preview');
  if (controlValues && Object.keys(controlValues).length > 0) {
    throw invalid('preview', [{ path: 'controlValues', message: "previews render the step as it is stored: save the controls (PUT /v2/workflows/{workflowId}) and preview again" }]);
  }
  const given = previewPayload?.subscriber ?? {};
  const subscriber: Record<string, unknown> = { subscriberId: typeof given['subscriberId'] === 'string' && given['subscriberId'] !== '' ? given['subscriberId'] : 'preview-subscriber' };
  for (const member of SUBSCRIBER_MEMBERS) if (member !== 'subscriberId' && given[member] !== undefined) subscriber[member] = given[member];
  const payload = previewPayload?.payload ?? {};
  const preview = await tidings.preview({ workflowId: workflow._id, stepId: String(index), subscriber: subscriber as never, payload: payload as never });
  const type = workflow.steps[index]!.template.type;
  const step = preview.steps[0];
  const notSent = preview.notSent[0];
  const result = !step
    ? { type, ...(notSent && { error: { message: notSent.reason } }) }
    : step.channel === 'email'
      ? { type, preview: { subject: step.subject ?? '', body: step.html ?? '' } }
      : step.channel === 'push'
        ? { type, preview: { subject: step.title ?? '', body: typeof step.content === 'string' ? step.content : '' } }
        : step.channel === 'in_app'
          ? { type, preview: { body: typeof step.content === 'string' ? step.content : '', ...(step.subject !== undefined && { subject: step.subject }), ...(step.data !== undefined && { data: step.data }) } }
          : { type, preview: { body: typeof step.content === 'string' ? step.content : '' } };
  return { result, previewPayloadExample: { subscriber, payload } };
}
