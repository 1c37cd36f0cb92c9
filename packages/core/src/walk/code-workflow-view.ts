import type { Step, Workflow } from '../schemas/index.js';
import type { CodeStepDeclaration, CodeWorkflow } from './code-workflow.js';
import { codeRevision } from '../revisions/code-revision.js';

const listedTypes = new Set<CodeStepDeclaration['type']>(['in_app', 'email', 'sms', 'chat', 'push', 'digest', 'delay']);

/** A declared step as the catalog lists it (custom and throttle steps have no stored form and are left out). */
function stepView(step: CodeStepDeclaration): Step {
  const view: Step = { _id: step.stepId, name: step.stepId, active: true, shouldStopOnFail: false, template: { type: step.type as Step['template']['type'] }, filters: [], variants: [] };
  // A digest the subscriber times shows its cadences, so preferences list and check them.
  return step.cadence ? { ...view, metadata: { type: 'preference', ...step.cadence } } : view;
}

/**
 * How a code workflow appears beside the stored ones (`workflows.list()`, preferences, Novu's
 * routes): its id is its `_id`, identifier and slug, so records that point at it stay valid across
 * restarts. Made by the process, never stored.
 */
export function codeWorkflowView(code: CodeWorkflow, steps: readonly CodeStepDeclaration[], env: string, organizationId: string, at: string): Workflow {
  return {
    _id: code.id,
    identifier: code.id,
    slug: code.id,
    name: code.name ?? code.id,
    description: code.description ?? '',
    active: true,
    draft: false,
    critical: code.critical ?? false,
    severity: code.severity ?? 'none',
    preferenceSettings: code.preferenceSettings ?? {},
    ...(code.debounce && { debounce: code.debounce }),
    tags: [...(code.tags ?? [])],
    ...(code.cancelOn && { cancelOn: [...code.cancelOn] }),
    steps: steps.filter((s) => listedTypes.has(s.type)).map(stepView),
    triggers: [{ type: 'event', identifier: code.id, variables: [] }],
    _organizationId: organizationId,
    _environmentId: env,
    _creatorId: 'code',
    _notificationGroupId: 'code',
    deleted: false,
    deletedAt: null,
    deletedBy: null,
    createdAt: at,
    updatedAt: at,
    revision: codeRevision(code, steps),
  };
}
