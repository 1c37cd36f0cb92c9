import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { main } from '../src/main.js';
import { helpDesk } from '../src/workflows.js';

it('code workflows example: the escalation emails only the subscriber who left the comment unread; the digest opens one ticket for three failures', async () => {
  const lines: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tidings-code-workflows-'));
  await main((line) => lines.push(line), join(dir, 'code-workflows.db'));
  rmSync(dir, { recursive: true, force: true });
  expect(lines).toEqual([
    '09:00 Grace comments on the posts of Ada and Bob',
    "  ada's inbox: Grace commented on “Engines” [Reply]",
    '  Ada reads it',
    '09:05 three payments of Acme fail',
    "09:36 ada's inbox: 3 failed payments of Acme: 245.50 EUR in all; ticket T-1",
    '10:01 an hour after the comments (only Bob has not read his):',
    '  [tidings email] to bob@example.com — You have an unread comment from Grace: Lovely work!',
    '  explain for ada: note delivered, wait delayed, reminder skipped',
    '  explain for bob: note delivered, wait delayed, reminder delivered',
  ]);
  // The custom step ran once, though the function was replayed for the step after it.
  expect(helpDesk.opened).toBe(1);
});
