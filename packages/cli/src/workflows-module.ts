import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CodeWorkflow } from '@tidings/core';
import { isCodeWorkflow } from '@tidings/core/internal';

/** A workflow made by `@novu/framework`'s own `workflow()`: an id, `discover()` and `trigger()`. */
interface NovuMade {
  id: string;
  discover(): Promise<unknown>;
}

const isNovuMade = (value: unknown): value is NovuMade =>
  typeof value === 'object' && value !== null && !isCodeWorkflow(value) && typeof (value as NovuMade).id === 'string' && typeof (value as NovuMade).discover === 'function' && typeof (value as { trigger?: unknown }).trigger === 'function';

/**
 * The workflows among a module's exports, each export a workflow or an array of them: code workflows
 * (`workflow()` or `novuWorkflows([...])` of `@tidings/framework`) as they are, and workflows made by
 * `@novu/framework`'s own `workflow()` apart, for `novuWorkflows` to run.
 */
export function workflowsIn(exports: Record<string, unknown>): { code: CodeWorkflow[]; novu: NovuMade[] } {
  const code = new Map<string, CodeWorkflow>();
  const novu = new Map<string, NovuMade>();
  for (const value of Object.values(exports)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isCodeWorkflow(item)) code.set(item.id, item);
      else if (isNovuMade(item)) novu.set(item.id, item);
    }
  }
  for (const id of code.keys()) novu.delete(id);
  return { code: [...code.values()], novu: [...novu.values()] };
}

/** `novuWorkflows` of `@tidings/framework` (an optional peer of this package), loaded when a module needs it. */
async function runThroughNovu(file: string, workflows: NovuMade[]): Promise<CodeWorkflow[]> {
  let framework: { novuWorkflows(workflows: readonly NovuMade[]): CodeWorkflow[] };
  try {
    framework = (await import('@tidings/framework' as string)) as typeof framework;
  } catch (error) {
    const ids = workflows.map((w) => `"${w.id}"`).join(', ');
    throw new Error(`--workflows ${file}: it exports workflows made by @novu/framework (${ids}); install @tidings/framework beside @tidings/cli to run them (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  return framework.novuWorkflows(workflows);
}

/**
 * Loads every workflow a module exports (`.js` / `.mjs`; `.ts` where a TypeScript loader such as tsx is
 * in the process), of `@tidings/framework` or `@novu/framework`. A module without any is refused, naming it.
 */
export async function loadWorkflowsModule(file: string): Promise<CodeWorkflow[]> {
  const url = pathToFileURL(resolve(file)).href;
  let exports: Record<string, unknown>;
  try {
    exports = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`--workflows ${file}: the module did not load: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const { code, novu } = workflowsIn(exports);
  if (code.length === 0 && novu.length === 0) throw new Error(`--workflows ${file}: the module exports no workflow (export what workflow() of '@tidings/framework' or of '@novu/framework' returns)`);
  return novu.length === 0 ? code : [...code, ...(await runThroughNovu(file, novu))];
}
