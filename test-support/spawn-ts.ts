import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

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

/** Runs a TypeScript file in a child Node process, resolving workspace packages to their sources. */
export function spawnTs(script: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): ChildProcess & { output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@tidings/source', script, ...args], {
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
