export { chatWebhookProvider, slackProvider, discordProvider, msTeamsProvider } from './chat.js';
export { pushWebhookProvider } from './push.js';
export { smtpProvider, type SmtpProviderOptions } from './smtp.js';
export { consoleProviders } from './console.js';
export { webhookProvider, type WebhookProviderOptions } from './webhook-provider.js';
export { postJson, type PostOptions } from './http.js';
export { addressGuard, type NetworkPolicy, type AddressGuard } from './network-policy.js';
