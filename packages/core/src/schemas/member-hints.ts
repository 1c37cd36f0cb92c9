import type { MemberHints } from '../validation.js';

const besideTemplate = 'it belongs on the step, beside `template`';
const insideTemplate = "it belongs inside the step's `template`";

/** What a workflow member we do not know probably meant, by where it was met. */
export const WORKFLOW_MEMBER_HINTS: MemberHints = {
  'steps[].template.metadata': `digest and delay settings are the step's \`metadata\`: ${besideTemplate}`,
  'steps[].variants[].template.metadata': `digest and delay settings are the step's \`metadata\`: ${besideTemplate}`,
  'steps[].template.filters': besideTemplate,
  'steps[].template.active': besideTemplate,
  'steps[].template.variants': besideTemplate,
  'steps[].template.shouldStopOnFail': besideTemplate,
  'steps[].type': insideTemplate,
  'steps[].content': insideTemplate,
  'steps[].subject': insideTemplate,
  'steps[].title': insideTemplate,
  'steps[].cta': insideTemplate,
  'steps[].variables': insideTemplate,
  'steps[].amount': "digest and delay settings are the step's `metadata: { type, amount, unit }`",
  'steps[].unit': "digest and delay settings are the step's `metadata: { type, amount, unit }`",
  workflowId: 'a workflow is triggered by `triggers: [{ identifier }]`',
  preferences: 'default channel preferences are `preferenceSettings`',
};

const inTo = 'recipients go in `to`: a subscriberId, `{ subscriberId, … }`, `{ type: "Topic", topicKey }` or a list of them';

/** What a trigger event member we do not know probably meant. */
export const TRIGGER_MEMBER_HINTS: MemberHints = {
  workflowId: "the workflow is `name` here (Novu's SDK calls it workflowId and sends it as name)",
  workflow: 'the workflow is `name`: its trigger identifier',
  identifier: 'the workflow is `name`: its trigger identifier',
  subscriberId: inTo,
  subscribers: inTo,
  recipients: inTo,
  topicKey: inTo,
  data: 'event data goes in `payload`',
  tenantId: 'the tenant is `tenant`: its identifier or `{ identifier, name?, data? }`',
  'to[].id': 'a subscriber is named by `subscriberId`',
  'to.id': 'a subscriber is named by `subscriberId`',
};

const everyone = 'a broadcast reaches every subscriber of the environment, so it names no recipients: `trigger` names them';

/** What a broadcast member we do not know probably meant: a trigger's hints, and recipients, which a broadcast has none of. */
export const BROADCAST_MEMBER_HINTS: MemberHints = {
  ...TRIGGER_MEMBER_HINTS,
  to: everyone,
  subscriberId: everyone,
  subscribers: everyone,
  recipients: everyone,
  topicKey: everyone,
};
