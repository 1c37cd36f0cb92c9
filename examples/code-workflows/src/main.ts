import { rmSync } from 'node:fs';
import { createTidings, manualClock } from '@tidings/core';
import { consoleProviders } from '@tidings/providers';
import { sqliteStorage } from '@tidings/sqlite';
import { commentReceived, paymentFailed } from './workflows.js';

const MINUTE = 60_000;

/**
 * Runs the code workflows on SQLite. A manual clock lets the demo pass an hour at once; an app leaves
 * `clock` out and calls `tidings.start()`, which runs jobs as they fall due.
 */
export async function main(log: (line: string) => void = console.log, filename = '.tidings/code-workflows.db') {
  // A demo: it starts from an empty database each run, so what it prints is always the same.
  for (const suffix of ['', '-wal', '-shm']) rmSync(filename + suffix, { force: true });
  const clock = manualClock('2026-03-02T09:00:00Z');
  const tidings = createTidings({
    storage: sqliteStorage({ filename }),
    clock,
    workflows: [commentReceived, paymentFailed],
    providers: consoleProviders({ channels: ['email'], log: (line) => log(`  ${line}`) }),
  });
  await tidings.integrations.upsert({ identifier: 'console-email', providerId: 'console', channel: 'email', credentials: {}, primary: true, active: true });
  const ada = { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' };
  const bob = { subscriberId: 'bob', firstName: 'Bob', email: 'bob@example.com' };

  log('09:00 Grace comments on the posts of Ada and Bob');
  for (const [to, post] of [[ada, 'Engines'], [bob, 'Looms']] as const) {
    await tidings.trigger({ name: 'comment-received', to, payload: { postId: post.toLowerCase(), post, author: 'Grace', text: 'Lovely work!' } });
  }
  await tidings.runDue(); // a workflow with a delay walks in a job; in-app steps alone walk within the trigger call
  const [note] = (await tidings.messages.feed('ada')).items;
  log(`  ada's inbox: ${note?.subject} [${note?.cta.action?.buttons?.[0]?.content}]`);
  await tidings.messages.markAs('ada', { messageId: note!._id, markAs: 'read' });
  log('  Ada reads it');

  log('09:05 three payments of Acme fail');
  for (const amount of [120, 80, 45.5]) {
    await tidings.trigger({ name: 'payment-failed', to: ada, payload: { customer: 'Acme', amount } });
    clock.advance(MINUTE);
  }

  clock.set('2026-03-02T09:36:00Z');
  await tidings.runDue();
  const [summary] = (await tidings.messages.feed('ada')).items;
  log(`09:36 ada's inbox: ${summary?.subject}: ${summary?.content}`);

  clock.set('2026-03-02T10:01:00Z');
  log('10:01 an hour after the comments (only Bob has not read his):');
  await tidings.runDue();

  for (const subscriberId of ['ada', 'bob']) {
    const comment = (await tidings.messages.feed(subscriberId)).items.find((message) => message.templateIdentifier === 'comment-received');
    const steps = (await tidings.explain(comment!.transactionId)).flatMap((record) => record.entries);
    log(`  explain for ${subscriberId}: ${steps.map((entry) => `${entry.stepId} ${entry.decision}`).join(', ')}`);
  }
  await tidings.storage.close();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await main();
}
