import { rmSync } from 'node:fs';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';

/** The quick start: one workflow, two subscribers, a bulk trigger, and the feed it produced. */
export async function main(log: (line: string) => void = console.log, filename = '.tidings/quickstart.db') {
  // A demo: it starts from an empty database each run, so the feed it prints is always the same.
  for (const suffix of ['', '-wal', '-shm']) rmSync(filename + suffix, { force: true });
  const tidings = createTidings({ storage: sqliteStorage({ filename }) });

  await tidings.workflows.upsert({
    name: 'Comment received',
    triggers: [{ identifier: 'comment-received' }],
    steps: [
      {
        template: {
          type: 'in_app',
          content: '{{ payload.author }} commented on “{{ payload.post }}”',
          cta: { type: 'redirect', data: { url: '/posts/{{ payload.postId }}' } },
        },
      },
    ],
  });

  await tidings.subscribers.upsert({ subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });

  const results = await tidings.triggerBulk([
    { name: 'comment-received', to: 'ada', payload: { author: 'Grace', post: 'Compilers', postId: 1 } },
    { name: 'comment-received', to: 'ada', payload: { author: 'Alan', post: 'Machines', postId: 2 } },
    { name: 'comment-received', to: { subscriberId: 'grace', firstName: 'Grace' }, payload: { author: 'Ada', post: 'Engines', postId: 3 } },
  ]);
  log(`triggered: ${results.map((r) => r.status).join(', ')}`);

  await tidings.runDue();

  for (const subscriberId of ['ada', 'grace']) {
    const { items } = await tidings.messages.feed(subscriberId);
    const counts = await tidings.messages.counts(subscriberId);
    log(`feed of ${subscriberId} (${counts.unseen} unseen):`);
    for (const message of items) log(`  • ${String(message.content)} → ${message.cta.data?.url}`);
  }
  await tidings.storage.close();
  return results;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  await main();
}
