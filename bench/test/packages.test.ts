import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs bench/lib/packages.ts's check in a process of its own, as `pnpm bench` starts one. */
function checkIn(env: NodeJS.ProcessEnv, conditions: string[]) {
  const script = "const p = await import('./bench/lib/packages.ts'); p.assertBuildsCurrent(); console.log(p.PACKAGES, p.tsArguments().join(' '), p.cliEntry());";
  const childEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  return spawnSync(process.execPath, ['--import', 'tsx', ...conditions, '--input-type=module', '-e', script], { cwd: root, env: childEnv, encoding: 'utf8', timeout: 120_000 });
}

it('a built run refuses to start when @tidings/core resolves to its sources; a source run measures the sources', () => {
  // The root tsconfig and the source condition send @tidings/core to packages/core/src: a run told
  // to measure the builds must not measure that.
  const refused = checkIn({ TIDINGS_BENCH_PACKAGES: 'built', TSX_TSCONFIG_PATH: undefined }, ['--conditions=@tidings/source']);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toMatch(/TIDINGS_BENCH_PACKAGES=built, but @tidings\/core resolves to .*packages\/core\/src/);
  const source = checkIn({ TIDINGS_BENCH_PACKAGES: undefined, TSX_TSCONFIG_PATH: undefined }, ['--conditions=@tidings/source']);
  expect(source.stderr).toBe('');
  expect(source.stdout.trim()).toBe(`source --import tsx --conditions=@tidings/source ${root}packages/cli/src/cli.ts`);
});
