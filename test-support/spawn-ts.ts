import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

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
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return Object.assign(child, { output: () => output, exited });
}

/** Resolves once `child` has printed `text`, or rejects after `timeoutMs`. */
export function waitForOutput(child: ReturnType<typeof spawnTs>, text: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (child.output().includes(text)) return resolve();
      if (child.exitCode !== null) return reject(new Error(`child exited before printing "${text}":\n${child.output()}`));
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for "${text}":\n${child.output()}`));
      setTimeout(check, 10);
    };
    check();
  });
}
