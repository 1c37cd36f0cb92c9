/**
 * The documents the engine stores for the bulk workload's subscribers and messages, built by hand in
 * its shapes (a message's document leaves out what its columns hold, as `@tidings/sql` stores it), so
 * the floors, the raw baselines and the BullMQ peer write the same bytes per row as the engine does.
 * `bench/test/documents.test.ts` holds them to what the engine really writes.
 */
export const BENCH_TEMPLATE_ID = '6b033dc8d1b29406a655c171';
export const BENCH_STEP_ID = '6b033dc8d1b29406a655c172';

export const messageContent = (n: number) => `Hello S${n}, ${n}`;

export function subscriberDocument(subscriberId: string, internalId: string, n: number, now: string): string {
  return JSON.stringify({ _id: internalId, subscriberId, firstName: `S${n}`, lastName: null, email: null, phone: null, avatar: null, locale: null, timezone: null, data: null, channels: [], isOnline: null, lastOnlineAt: null, _organizationId: 'default', _environmentId: 'default', deleted: false, createdAt: now, updatedAt: now });
}

export function messageDocument(notificationId: string, subscriberId: string, n: number, now: string): string {
  return JSON.stringify({ _templateId: BENCH_TEMPLATE_ID, _messageTemplateId: BENCH_STEP_ID, _organizationId: 'default', _notificationId: notificationId, subscriberId, templateIdentifier: 'bench', deliveredAt: [now], content: messageContent(n), cta: {}, _feedId: null, status: 'sent', payload: { n }, overrides: {}, contextKeys: [], tags: [] });
}

/** Record ids and transaction ids ordered by time, as the engine makes them. */
export function orderedIds() {
  let seq = 0;
  return {
    id: () => `${Math.floor(Date.now() / 1000).toString(16)}0000000000${(seq++).toString(16).padStart(6, '0')}`,
    transactionId: () => `${Date.now().toString(16).padStart(12, '0')}-7000-8000-${(seq++).toString(16).padStart(12, '0')}`,
  };
}
