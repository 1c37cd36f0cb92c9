import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Workspace imports resolve to sources, so tests run without a build. Longest keys first. */
export const sourceAliases = [
  { find: /^@tidings\/core\/testing$/, replacement: here('./packages/core/src/testing/index.ts') },
  { find: /^@tidings\/core\/conformance$/, replacement: here('./packages/core/src/conformance.ts') },
  { find: /^@tidings\/core\/internal$/, replacement: here('./packages/core/src/internal.ts') },
  { find: /^@tidings\/core\/schemas$/, replacement: here('./packages/core/src/schemas.ts') },
  { find: /^@tidings\/([a-z-]+)$/, replacement: here('./packages/$1/src/index.ts') },
];

/**
 * A package's test project. Tests that do real work get room to do it on a busy machine (a minute,
 * not Vitest's 5 s); a test never relies on a timeout to pass, only to end a hang.
 */
export function project(name: string, test: UserWorkspaceConfig['test'] = {}) {
  return defineProject({ resolve: { alias: sourceAliases }, test: { name, testTimeout: 60_000, hookTimeout: 60_000, ...test } });
}
