import { MESSAGE_CHANGE_EVENTS, type Message, type Tidings } from '@tidings/core';

/** A change to one of an environment's in-app messages, with a way to read the message. */
export interface LiveChange {
  readonly subscriberId: string;
  readonly kind: 'created' | 'changed';
  /** The message as stored now (null once deleted). Called only by listeners that need it. */
  message(): Promise<Message | null>;
}

/**
 * The changes to an engine's in-app messages, for live streams: from every process when the storage
 * relays them (Postgres: the engine of another process delivered it), else from this process's
 * engine. `onGap` is called when changes may have been missed (the relay's connection came back
 * after a loss): a stream then sends its counts again. Returns the unsubscribe function.
 */
export function onLiveChanges(tidings: Tidings, listener: (change: LiveChange) => void, onGap: () => void = () => undefined): () => void {
  const relay = tidings.storage.live;
  if (relay) {
    return relay.subscribe((notice) => {
      if (notice.env !== tidings.environmentId) return;
      listener({ subscriberId: notice.subscriberId, kind: notice.kind, message: () => tidings.messages.get(notice.subscriberId, notice.messageId) });
    }, onGap);
  }
  const local = (kind: LiveChange['kind'], deleted = false) => ({ message }: { message: Message }) => {
    if (message.channel === 'in_app') listener({ subscriberId: message.subscriberId, kind, message: async () => (deleted ? null : message) });
  };
  const onCreated = local('created');
  const onChanged = local('changed');
  const onDeleted = local('changed', true);
  tidings.events.on('message.created', onCreated);
  for (const name of MESSAGE_CHANGE_EVENTS) tidings.events.on(name, name === 'message.deleted' ? onDeleted : onChanged);
  return () => {
    tidings.events.off('message.created', onCreated);
    for (const name of MESSAGE_CHANGE_EVENTS) tidings.events.off(name, name === 'message.deleted' ? onDeleted : onChanged);
  };
}
