import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('tidings serve: SQLite by default, prints the URL and a generated key (kept for the next run), serves, and stops on SIGTERM', async () => {
  const db = join(dir, 'data', 'tidings.db');
  const child = spawnTs('packages/http/src/cli.ts', ['serve', '--port', '0', '--db', db]);
  await waitForOutput(child, 'API key:');
  const url = /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
  const key = /API key: (\S+)/.exec(child.output())![1]!;
  expect(readFileSync(join(dir, 'data', 'api-key'), 'utf8').trim()).toBe(key);
  const response = await fetch(`${url}/v1/integrations/active`, { headers: { authorization: `ApiKey ${key}` } });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ data: [] });
  child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
  expect(child.output()).toContain('Tidings stopped');

  const again = spawnTs('packages/http/src/cli.ts', ['serve', '--port', '0', '--db', db]);
  await waitForOutput(again, 'API key:');
  expect(again.output()).toContain(`API key: ${key}`);
  again.kill('SIGTERM');
  await again.exited;
}, 60_000);
