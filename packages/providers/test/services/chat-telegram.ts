import { serviceServer, type ServiceCall, type ServiceReply } from './push-and-chat-server.js';

export interface TelegramFakeOptions {
  /** The bot's token, as BotFather gives it (`123456:ABC-DEF...`). */
  readonly botToken: string;
  /** The chats the bot may write to. */
  readonly chats: readonly string[];
  /** How many first requests are rate limited (429 with `parameters.retry_after`). */
  readonly flooded?: number;
}

const failure = (errorCode: number, description: string, parameters?: object): ServiceReply => ({
  status: errorCode,
  json: { ok: false, error_code: errorCode, description, ...(parameters && { parameters }) },
});

/**
 * Plays the Telegram Bot API's `POST /bot{token}/sendMessage`: checks the token, the JSON body, the
 * chat and the text, answers `{ ok: true, result: { message_id, chat, date, text } }`, or
 * `{ ok: false, error_code, description }` as Telegram does.
 */
export async function telegramFake(options: TelegramFakeOptions) {
  const delivered: { chatId: string; text: string; messageId: number }[] = [];
  let requests = 0;
  const answer = (call: ServiceCall): ServiceReply => {
    const match = /^\/bot([^/]+)\/sendMessage$/.exec(call.path);
    if (call.method !== 'POST' || !match) return failure(404, 'Not Found');
    if (decodeURIComponent(match[1]!) !== options.botToken) return failure(401, 'Unauthorized');
    if (++requests <= (options.flooded ?? 0)) return failure(429, 'Too Many Requests: retry after 7', { retry_after: 7 });
    if (!call.headers['content-type']?.startsWith('application/json') || call.json === null) return failure(400, 'Bad Request: message text is empty');
    const { chat_id: chatId, text } = call.json as { chat_id?: unknown; text?: unknown };
    if (typeof text !== 'string' || text === '') return failure(400, 'Bad Request: message text is empty');
    if (text.length > 4096) return failure(400, 'Bad Request: message is too long');
    if (!options.chats.includes(String(chatId))) return failure(400, 'Bad Request: chat not found');
    const messageId = delivered.length + 100;
    delivered.push({ chatId: String(chatId), text, messageId });
    return { status: 200, json: { ok: true, result: { message_id: messageId, from: { id: 1, is_bot: true, first_name: 'Tidings' }, chat: { id: Number(chatId), type: 'private' }, date: 1780315200, text } } };
  };
  const server = await serviceServer(answer);
  return { ...server, delivered };
}
