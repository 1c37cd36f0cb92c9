import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { escalation } from '../src/escalation.js';

it('escalation example: "email if the in-app message is not read within an hour", in code and as JSON, emails only Bob, who left both unread', async () => {
  const lines: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tidings-escalation-'));
  await escalation((line) => lines.push(line), join(dir, 'escalation.db'));
  rmSync(dir, { recursive: true, force: true });
  expect(lines.slice(0, 3)).toEqual(['09:00 two invoices fall due, for Ada and for Bob, each workflow once', '09:20 Ada reads both', '10:00 an hour later:']);
  // The two emails go out in one batch, in either order.
  expect(lines.slice(3, 5).sort()).toEqual([
    '  [tidings email] to bob@example.com — Reminder: invoice I-1 is due: Please pay it this week.',
    '  [tidings email] to bob@example.com — Reminder: invoice I-2 is due: Please pay it this week.',
  ]);
  expect(lines.slice(5)).toEqual([
    '  ada, escalation-code: read held: waiting for event "message.read"; read ran: event "message.read" matched: the run goes on',
    '  ada, escalation-json: read held: waiting for event "message.read"; read skipped: event "message.read" matched: the run ends here (onEvent: halt)',
    '  bob, escalation-code: read held: waiting for event "message.read"; read ran: no event "message.read" came: the run goes on (onTimeout: continue)',
    '  bob, escalation-json: read held: waiting for event "message.read"; read ran: no event "message.read" came: the run goes on (onTimeout: continue)',
  ]);
});
