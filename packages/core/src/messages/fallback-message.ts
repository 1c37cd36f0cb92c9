import type { Channel, Message } from '../schemas/index.js';
import { renderEmailBody } from '../templates/email-html.js';
import { escapeHtml } from '../templates/render.js';

/** The id of a step's fallback message: the step's own message id and the channel, so a re-run stores it once. */
export const fallbackMessageId = (messageId: string, channel: Channel) => `${messageId}.${channel}`;

/**
 * A step's message as it goes out through the fallback channel: the same words, in the shape that
 * channel takes (text, as a text block for email; a subject from the title and a title from the
 * subject when the first channel had only one), and no address yet (the delivery finds it).
 */
export function fallbackMessage(message: Message, channel: Channel): Message {
  const { email: _email, phone: _phone, directWebhookUrl: _webhook, deviceTokens: _tokens, providerId: _provider, errorId: _errorId, errorText: _errorText, ...rest } = message;
  const text = message.channel === 'email' ? renderEmailBody(message.content).text : typeof message.content === 'string' ? message.content : renderEmailBody(message.content).text;
  // To email, the text goes as a block, so its characters stay text rather than markup.
  const content: Message['content'] = channel === 'email' ? [{ type: 'text', content: escapeHtml(text) }] : text;
  const heading = message.subject ?? message.title;
  return {
    ...rest,
    _id: fallbackMessageId(message._id, channel),
    channel,
    content,
    status: 'sent',
    deliveredAt: [],
    ...(channel === 'email' && heading !== undefined && { subject: heading }),
    ...((channel === 'push' || channel === 'in_app') && heading !== undefined && { title: heading }),
  };
}
