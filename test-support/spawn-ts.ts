import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where spawnTs keeps its bundles for a test run: a directory the root Vitest config's global setup
 * (test-support/spawn-ts-setup.ts) makes and removes. Without it (spawnTs outside Vitest, e.g. the
 * benchmarks' `pnpm bench`) every child runs through tsx.
 */
export const BUNDLE_DIRECTORY_VARIABLE = 'TIDINGS_TEST_SPAWN_BUNDLES';

/**
 * Set to `built` (by `pnpm bench`), children import the workspace packages' builds instead of their
 * sources (tsx then needs a tsconfig that maps no package to its sources: TSX_TSCONFIG_PATH).
 */
export const PACKAGES_VARIABLE = 'TIDINGS_SPAWN_PACKAGES';

/** Makes the bundle directory of a test run; the function it returns removes it. */
export function makeBundleDirectory(): () => void {
  const directory = mkdtempSync(join(tmpdir(), 'tidings-spawn-ts-'));
  process.env[BUNDLE_DIRECTORY_VARIABLE] = directory;
  return () => rmSync(directory, { recursive: true, force: true });
}

/** Scripts this process could not bundle (see `bundled`): they run through tsx. */
const unbundled = new Set<string>();

/** The newest bundle of a script, if every source file it was made from is as it was then. */
function freshBundle(directory: string, name: string): string | undefined {
  try {
    const version = join(directory, readFileSync(join(directory, 'current'), 'utf8'));
    const { started, inputs } = JSON.parse(readFileSync(join(version, 'inputs.json'), 'utf8')) as { started: number; inputs: string[] };
    return inputs.every((input) => statSync(input).mtimeMs < started) ? join(version, `${name}.js`) : undefined;
  } catch {
    return undefined; // none yet, or a source file gone
  }
}

/**
 * The entry file of a bundle of `script` (an absolute path) made by test-support/bundle-ts.mjs: the
 * newest one (made by this worker or another) while its sources are unchanged, else a new one; or
 * undefined when the script must run through tsx: no bundle directory, or esbuild cannot bundle it
 * (tsx then reports the problem as it always did).
 */
function bundled(script: string): string | undefined {
  const bundles = process.env[BUNDLE_DIRECTORY_VARIABLE];
  if (!bundles || unbundled.has(script)) return undefined;
  const name = basename(script, extname(script));
  const directory = join(bundles, `${name}-${createHash('sha256').update(script).digest('hex').slice(0, 16)}`);
  const fresh = freshBundle(directory, name);
  if (fresh) return fresh;
  const made = spawnSync(process.execPath, [fileURLToPath(new URL('./bundle-ts.mjs', import.meta.url)), script, directory], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  if (made.status === 0) return made.stdout.trim();
  unbundled.add(script);
  process.stderr.write(`spawnTs: ${script} runs through tsx: ${(made.stderr || made.error?.message || `bundling ended with ${made.signal}`).trim().split('\n')[0]}\n`);
  return undefined;
}

/**
 * How a child runs `script`: from its esbuild bundle (two to three times faster to start than tsx,
 * which transpiles each of hundreds of modules on every start), or through tsx where it needs tsx's
 * loader at run time, i.e. its arguments name a TypeScript file for it to import (`--workflows
 * ./x.ts`), or where it cannot be bundled.
 */
function nodeArguments(script: string, args: readonly string[]): string[] {
  if (process.env[PACKAGES_VARIABLE] === 'built') return ['--import', 'tsx', script];
  const loadsTypeScript = args.some((arg) => /\.[cm]?tsx?$/.test(arg));
  const bundle = loadsTypeScript ? undefined : bundled(resolve(root, script));
  return bundle ? ['--enable-source-maps', '--conditions=@tidings/source', bundle] : ['--import', 'tsx', '--conditions=@tidings/source', script];
}

/** Every child still running, so a test file can stop them whatever its outcome (see `killSpawned`). */
const running = new Set<ChildProcess>();

/**
 * Stops every child spawned by this test file that is still running (SIGKILL) and waits for each to
 * exit. Call it in `afterEach` / `afterAll`: a failing test must not leave servers behind.
 */
export async function killSpawned(): Promise<void> {
  const children = [...running];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/**
 * Runs a TypeScript file in a child Node process, resolving workspace packages to their sources (to
 * their builds with TIDINGS_SPAWN_PACKAGES=built): in a test run, from a bundle of it made once per
 * run (see `nodeArguments`).
 */
export function spawnTs(script: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): ChildProcess & { output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...nodeArguments(script, args), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return Object.assign(child, { output: () => output, exited });
}

/**
 * Resolves once `child` has printed `text` (a string, or a pattern: match whole lines by ending it
 * with `\n`), or rejects when it exits first or after `timeoutMs`, which is only a guard against a
 * hang: a busy machine may take long to start a child, so it is generous.
 */
export function waitForOutput(child: ReturnType<typeof spawnTs>, text: string | RegExp, timeoutMs = 90_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const printed = () => (typeof text === 'string' ? child.output().includes(text) : text.test(child.output()));
    const check = () => {
      if (printed()) return resolve();
      if (child.exitCode !== null) return reject(new Error(`child exited before printing "${text}":\n${child.output()}`));
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for "${text}":\n${child.output()}`));
      setTimeout(check, 10);
    };
    check();
  });
}
