import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Every package is its own project; `@tidings/source` makes workspace imports resolve to
// TypeScript sources, so tests never need a build.
export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'examples/*',
      'bench',
      // Core's test that mocks a module, isolated (the core project shares modules between its files).
      'packages/core/vitest.mocked.config.ts',
      // HTTP's files whose clients keep state between files, isolated (the http project shares modules).
      'packages/http/vitest.isolated.config.ts',
      // The providers' test that mocks a module, isolated (the providers project shares modules).
      'packages/providers/vitest.mocked.config.ts',
    ],
    // Vitest's default (one worker per core but one) runs a 2-core machine's files one at a time,
    // though many of them mostly wait (on Postgres, spawned servers, sockets): one more file than
    // there are cores keeps the cores busy while some wait.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    // The children spawnTs starts run from esbuild bundles, kept for the run in a temporary directory
    // that this makes and removes (a child starts two to three times faster than through tsx).
    globalSetup: ['./test-support/spawn-ts-setup.ts'],
  },
});
