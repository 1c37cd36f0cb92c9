import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which @tidings packages the benchmark measures: `built` (each package's `dist`, what an app that
 * installs Tidings runs; `pnpm bench` builds them first) or `source` (the TypeScript sources through
 * tsx, as the test suite's quick run does). tsx's transform keeps function names by wrapping every
 * function a call makes (`__name`), which cost the engine 10–20% of a bulk call's rate; the peer
 * (BullMQ) and the raw baselines run compiled code, so the figures compare against the built engine.
 */
export type Packages = 'built' | 'source';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What this run measures: `pnpm bench` sets TIDINGS_BENCH_PACKAGES=built; anything else runs the sources. */
export const PACKAGES: Packages = process.env['TIDINGS_BENCH_PACKAGES'] === 'built' ? 'built' : 'source';

/** The tsconfig a built run's processes load TypeScript with: it maps no @tidings path to the sources. */
export const BUILT_TSCONFIG = join(root, 'bench', 'tsconfig.built.json');

/** Node's arguments that run a bench TypeScript file importing the same packages as this process. */
export const tsArguments = (): string[] => (PACKAGES === 'built' ? ['--import', 'tsx'] : ['--import', 'tsx', '--conditions=@tidings/source']);

/**
 * What a built run's children inherit so they import the builds too: spawnTs reads the first (its
 * PACKAGES_VARIABLE, spelled out: bench/compare-trees.ts copies this file where test-support is not),
 * tsx the second.
 */
export const BUILT_ENVIRONMENT = { TIDINGS_SPAWN_PACKAGES: 'built', TSX_TSCONFIG_PATH: BUILT_TSCONFIG } as const;

/** The `tidings` command line: the CLI package's build, or its source. */
export const cliEntry = (): string => join(root, 'packages', 'cli', PACKAGES === 'built' ? 'dist/cli.js' : 'src/cli.ts');

/** The newest modification time under `dir` (files only), 0 when there is none. */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Throws when a built run would not measure this checkout's builds: `@tidings/core` resolving to its
 * sources (tsx given the root tsconfig, or the source condition), or a build older than its sources.
 */
export function assertBuildsCurrent(): void {
  if (PACKAGES !== 'built') return;
  const core = fileURLToPath(import.meta.resolve('@tidings/core'));
  if (!core.includes(join('packages', 'core', 'dist'))) throw new Error(`TIDINGS_BENCH_PACKAGES=built, but @tidings/core resolves to ${core} (run with TSX_TSCONFIG_PATH=bench/tsconfig.built.json and no --conditions)`);
  const stale = readdirSync(join(root, 'packages')).filter((name) => {
    const src = join(root, 'packages', name, 'src');
    return existsSync(src) && newest(join(root, 'packages', name, 'dist')) < newest(src);
  });
  if (stale.length > 0) throw new Error(`the builds of ${stale.join(', ')} are missing or older than their sources: run pnpm build (pnpm bench does)`);
}
