import type { TriggerStatus, Workflow } from '../schemas/index.js';

/** The trigger status a workflow decides by itself (DESIGN §6), or null when it can run. */
export function workflowStatus(workflow: Workflow): Exclude<TriggerStatus, 'processed'> | null {
  if (!workflow.active || workflow.draft) return 'trigger_not_active';
  if (workflow.steps.length === 0) return 'no_workflow_steps_defined';
  if (!workflow.steps.some((step) => step.active)) return 'no_workflow_active_steps_defined';
  return null;
}
