/**
 * What a live connection may send: Novu's client sends only pings and its connect packet, so a large
 * plain WebSocket frame closes the connection instead of being buffered, and a socket.io session
 * without a valid token is closed as soon as it is refused.
 */
import { memoryStorage } from '@tidings/memory';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_FRAME_BYTES } from '../src/inbox/inbox-sockets.js';
import { issueToken } from '../src/inbox/session.js';
import { serveEngine } from './helpers.js';

const KEY = 'socket-limits-key';
const APP = 'app-socket-limits';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start() {
  const { tidings, url, close } = await serveEngine(memoryStorage(), KEY, APP);
  closers.push(close);
  await tidings.subscribers.upsert({ subscriberId: 'ada' });
  return { url, token: issueToken({ tidings, applicationIdentifier: APP, apiKey: KEY }, 'ada', Date.now() + 60_000) };
}

describe('Inbox sockets refuse what the client never sends', () => {
  it('a plain WebSocket frame larger than 16 KiB closes the connection (1009) unbuffered; pings still answer', async () => {
    const { url, token } = await start();
    const ws = new WebSocket(`${url.replace('http', 'ws')}/?token=${encodeURIComponent(token)}`);
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    const pong = new Promise<string>((resolve) => ws.once('message', (frame) => resolve(frame.toString())));
    ws.send('ping');
    expect(await pong).toBe('pong');
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(Buffer.alloc(MAX_FRAME_BYTES + 1, 0x61));
    expect(await closed).toBe(1009);
  });

  it('a socket.io session without a token is refused and its connection closed at once, not at the connect timeout', async () => {
    const { url } = await start();
    const open = await fetch(`${url}/socket.io/?EIO=4&transport=polling`);
    const sid = (JSON.parse((await open.text()).slice(1)) as { sid: string }).sid;
    const poll = `${url}/socket.io/?EIO=4&transport=polling&sid=${sid}`;
    expect((await fetch(poll, { method: 'POST', body: '40' })).status).toBe(200);
    expect(await (await fetch(poll)).text()).toMatch(/^44\{"message":"Missing the inbox session token/);
    // The next poll ends the session (a close packet, or the session is already gone): not a ping 25 s later.
    const next = await fetch(poll);
    const body = await next.text();
    // A polling payload is packets separated by \x1e; '1' is engine.io's close packet.
    expect(next.status === 400 || body.split('\x1e').includes('1')).toBe(true);
  });
});
