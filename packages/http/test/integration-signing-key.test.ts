/**
 * The status callbacks' signing key of an integration (`configurations.inboundWebhookSigningKey`) is
 * a secret, write-only like its credentials: no answer of the integration routes carries it (issue 40).
 */
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

const SIGNING_KEY = 'key-webhook-signing-0123456789abcdef';

describe('integration routes and the webhook signing key', () => {
  it('is taken on create and update, kept for checking callbacks, and never answered: not by the lists, create, update or set-primary', async () => {
    const { request, a } = await setup();
    const created = await request('POST', '/v1/integrations', {
      providerId: 'mailgun',
      channel: 'email',
      credentials: { apiKey: 'key-123', domain: 'mg.example.com' },
      configurations: { inboundWebhookEnabled: true, inboundWebhookSigningKey: SIGNING_KEY },
    });
    expect(created.status).toBe(201);
    const createdBody = await created.text();
    const { _id: id } = (JSON.parse(createdBody) as { data: { _id: string } }).data;
    const answers = [
      createdBody,
      await (await request('GET', '/v1/integrations')).text(),
      await (await request('GET', '/v1/integrations/active')).text(),
      await (await request('PUT', `/v1/integrations/${id}`, { configurations: { inboundWebhookEnabled: true, inboundWebhookSigningKey: `${SIGNING_KEY}-2` } })).text(),
      await (await request('POST', `/v1/integrations/${id}/set-primary`)).text(),
    ];
    for (const answer of answers) {
      expect(answer).not.toContain(SIGNING_KEY);
      expect(answer).not.toContain('inboundWebhookSigningKey');
    }
    // What is not secret is still shown, and the key is kept for the callbacks.
    const [listed] = (JSON.parse(answers[1]!) as { data: Record<string, unknown>[] }).data;
    expect(listed).toMatchObject({ _id: id, providerId: 'mailgun', credentials: {}, configurations: { inboundWebhookEnabled: true } });
    expect((await a.integrations.list())[0]!.configurations).toEqual({ inboundWebhookEnabled: true, inboundWebhookSigningKey: `${SIGNING_KEY}-2` });
  });
});
