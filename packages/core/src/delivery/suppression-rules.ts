import type { ProviderStatusEvent } from './provider.js';
import { normalAddress, type Message, type Suppression } from '../schemas/index.js';

/**
 * The addresses a provider's reports on a message put on the suppression list: an email that bounced
 * for good (a hard bounce) or whose owner complained; a phone the carrier says can never take a
 * message (a permanent failure). Soft bounces and other failures suppress nothing. The address is
 * always the message's own (one recipient a message): never one the callback names, which a forged
 * or replayed callback could choose.
 */
export function suppressionsFromReports(message: Message, reports: readonly ProviderStatusEvent[]): Suppression[] {
  const entries = new Map<string, Suppression>();
  for (const report of reports) {
    const reason = message.channel === 'email' ? (report.state === 'complained' ? 'complained' : report.state === 'bounced' && report.bounce !== 'soft' ? 'bounced' : null) : message.channel === 'sms' && report.state === 'failed' && report.permanent ? 'failed' : null;
    const address = message.channel === 'email' ? message.email : message.phone;
    if (!reason || !address || (message.channel !== 'email' && message.channel !== 'sms')) continue;
    const entry: Suppression = { channel: message.channel, address: normalAddress(message.channel, address), reason, at: report.at, messageId: message._id, ...(report.reason !== undefined && { detail: report.reason }) };
    entries.set(`${entry.channel}\u0000${entry.address}`, entry);
  }
  return [...entries.values()];
}
