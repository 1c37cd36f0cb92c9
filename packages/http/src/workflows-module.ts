import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isCodeWorkflow, type CodeWorkflow } from '@tidings/core';

/** The code workflows among a module's exports: each workflow, and each array of them (`novuWorkflows([...])`). */
export function codeWorkflowsIn(exports: Record<string, unknown>): CodeWorkflow[] {
  const found = new Map<string, CodeWorkflow>();
  for (const value of Object.values(exports)) {
    for (const item of Array.isArray(value) ? value : [value]) if (isCodeWorkflow(item)) found.set(item.id, item);
  }
  return [...found.values()];
}

/**
 * Loads every code workflow a module exports (`.js` / `.mjs`; `.ts` where a TypeScript loader such as
 * tsx is in the process). A module without any is refused, naming it.
 */
export async function loadWorkflowsModule(file: string): Promise<CodeWorkflow[]> {
  const url = pathToFileURL(resolve(file)).href;
  let exports: Record<string, unknown>;
  try {
    exports = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`--workflows ${file}: the module did not load: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const workflows = codeWorkflowsIn(exports);
  if (workflows.length === 0) throw new Error(`--workflows ${file}: the module exports no workflow (export the values of workflow() or novuWorkflows() from '@tidings/framework')`);
  return workflows;
}
