import { categoryKeySchema, type Category, type UnsubscribeScope, type Workflow } from '../schemas/index.js';

const TAG_PREFIX = 'category:';

/** The category a tag `category:<key>` names (Novu's workflows carry tags, not categories), if any is valid. */
export function categoryFromTags(tags: readonly string[]): string | undefined {
  for (const tag of tags) {
    if (!tag.startsWith(TAG_PREFIX)) continue;
    const key = categoryKeySchema.safeParse(tag.slice(TAG_PREFIX.length));
    if (key.success) return key.data;
  }
  return undefined;
}

/** Categories whose workflows carry no unsubscribe headers unless a workflow asks: mail a person must get. */
const TRANSACTIONAL = new Set(['transactional', 'security', 'account']);

/**
 * What one-click unsubscribe from a workflow's email opts out of: nothing for a critical workflow; else
 * the workflow's own setting, else its stored category's, else `none` for a transactional category, else the
 * category when it has one, else the workflow.
 */
export function unsubscribeScope(workflow: Pick<Workflow, 'critical' | 'category' | 'unsubscribe'>, categories: ReadonlyMap<string, Pick<Category, 'unsubscribe'>> | undefined): UnsubscribeScope {
  if (workflow.critical) return 'none';
  const scope = workflow.unsubscribe ?? (workflow.category === undefined ? undefined : categories?.get(workflow.category)?.unsubscribe);
  if (scope === 'category' || (scope === undefined && workflow.category !== undefined)) {
    if (scope === undefined && TRANSACTIONAL.has(workflow.category!)) return 'none';
    return workflow.category !== undefined ? 'category' : 'workflow';
  }
  return scope ?? 'workflow';
}

/** A category's display name when none is stored: its key in words (`product-updates` → `Product updates`). */
export const categoryName = (key: string): string => {
  const words = key.replace(/[._-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};
