import type { Message } from '@tidings/core';
import { contextKeyText } from '@tidings/core/internal';
import { bit, decodeJson, encodeJson } from './codec.js';
import type { Database } from './tables.js';

type MessageRow = Database['tidings_messages'];

/** Columns a message is rebuilt from: the document plus the members kept only in columns. */
export const MESSAGE_SELECT = ['doc', 'id', 'env', 'subscriber_internal_id', 'transaction_id', 'channel', 'read', 'seen', 'created_at', 'archived', 'snoozed_until', 'severity', 'expires_at'] as const;

/**
 * A message as a row. Members that have their own column are left out of the document, which makes it
 * about 40% smaller: messages are the engine's most written rows, and their bytes are most of what a
 * batch commits.
 */
export function messageRow(m: Message): MessageRow {
  const { _id, _environmentId, _subscriberId, transactionId, channel, read, seen, createdAt, archived, snoozedUntil, severity, expiresAt, ...rest } = m;
  return {
    id: _id,
    env: _environmentId,
    subscriber_internal_id: _subscriberId,
    transaction_id: transactionId,
    channel,
    read: bit(read),
    seen: bit(seen),
    created_at: createdAt,
    doc: encodeJson(rest),
    archived: bit(archived),
    snoozed_until: snoozedUntil ?? null,
    tags: m.tags.length === 0 ? '' : `,${m.tags.join(',')},`,
    severity,
    expires_at: expiresAt ?? null,
    context_key: contextKeyText(m.contextKeys),
  };
}

/** The message of a row; rows written before the document was slimmed carry every member, columns win. */
export function messageFromRow(row: Pick<MessageRow, (typeof MESSAGE_SELECT)[number]>): Message {
  const message: Message = {
    ...decodeJson<Omit<Message, '_id'>>(row.doc),
    _id: row.id,
    _environmentId: row.env,
    _subscriberId: row.subscriber_internal_id,
    transactionId: row.transaction_id,
    channel: row.channel as Message['channel'],
    read: Number(row.read) === 1,
    seen: Number(row.seen) === 1,
    createdAt: row.created_at,
    archived: Number(row.archived) === 1,
    severity: row.severity as Message['severity'],
  };
  if (row.snoozed_until !== null) message.snoozedUntil = row.snoozed_until;
  else if ('snoozedUntil' in message) delete message.snoozedUntil;
  if (row.expires_at !== null && row.expires_at !== undefined) message.expiresAt = row.expires_at;
  return message;
}
