import { defineConfig } from 'vitest/config';

// Every package is its own project; `@tidings/source` makes workspace imports resolve to
// TypeScript sources, so tests never need a build.
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*', 'bench'],
  },
});
