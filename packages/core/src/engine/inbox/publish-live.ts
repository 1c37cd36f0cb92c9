import { MESSAGE_CHANGE_EVENTS, type TidingsEmitter } from '../../events.js';
import type { Message } from '../../schemas/index.js';
import type { LiveNotice, LiveRelay } from '../../storage.js';


/** Publishes every change to an in-app message on the storage's cross-process relay. */
export function publishLive(relay: LiveRelay, events: TidingsEmitter, env: string, onError: (error: unknown) => void): void {
  const publish = (message: Message, kind: LiveNotice['kind']) => {
    if (message.channel !== 'in_app') return;
    relay.publish({ env, subscriberId: message.subscriberId, messageId: message._id, kind }).catch(onError);
  };
  events.on('message.created', ({ message }) => publish(message, 'created'));
  for (const name of MESSAGE_CHANGE_EVENTS) events.on(name, ({ message }) => publish(message, 'changed'));
}
