import { ProviderError, type Provider } from '@tidings/core';
import { AwsV4Signer } from 'aws4fetch';
import { answerError, atBase, serviceRequest } from '../http.js';
import type { ServiceProviderOptions } from '../service-options.js';
import { baseUrlOf, formBody, overrideFields, pascalCase, recipientPhone, requestOptions, requireCredentials, serviceCode } from './sms-fields.js';

/** The region becomes part of the host name, so only a region's shape is let through. */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/** AWS error codes that mean "later", whatever HTTP status came with them (Throttling comes as 400). */
const RETRYABLE_CODES = new Set(['Throttling', 'ThrottlingException', 'Throttled', 'ThrottledException', 'RequestThrottled', 'TooManyRequestsException', 'InternalError', 'InternalFailure', 'ServiceUnavailable', 'KMSThrottling', 'RequestTimeout']);

const xmlElement = (xml: string, name: string) => new RegExp(`<${name}>\\s*([^<]+?)\\s*</${name}>`).exec(xml)?.[1];

/**
 * Amazon SNS SMS through the query API: `POST https://sns.{region}.amazonaws.com/` with form-encoded
 * `Action=Publish&PhoneNumber=...&Message=...&Version=2010-03-31`, signed with SigV4 for service
 * `sns`. Novu's credentials: `apiKey` (access key id), `secretKey` (secret access key), `region`. The
 * answer is XML: `<MessageId>` on success, `<Error><Code>` (the errorId) on failure. The trigger's
 * `overrides.sns` add or replace Publish parameters (e.g. `MessageAttributes.entry.1.Name`).
 */
export const snsProvider = (options: ServiceProviderOptions = {}): Provider => ({
  id: 'sns',
  channel: 'sms',
  async send(message, credentials, context) {
    const { apiKey, secretKey, region } = requireCredentials('sns', credentials, ['apiKey', 'secretKey', 'region']);
    if (!REGION.test(region)) throw new ProviderError(`sns: "${region}" is not an AWS region`, { retryable: false, code: 'invalid_region' });
    const phone = recipientPhone('sns', message);
    const host = `sns.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
    const body = formBody(
      { Action: 'Publish', PhoneNumber: phone, Message: message.content, Version: '2010-03-31' },
      overrideFields(message.overrides, pascalCase),
      ['Action', 'Version'],
    );
    const signed = await new AwsV4Signer({
      method: 'POST',
      url: atBase(`https://${host}/`, baseUrlOf(credentials, options)),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
      accessKeyId: apiKey,
      secretAccessKey: secretKey,
      service: 'sns',
      region,
      // aws4fetch leaves content-type unsigned by default; AWS's SDKs sign it, and so do we.
      allHeaders: true,
    }).sign();
    const headers: Record<string, string> = {};
    signed.headers.forEach((value, name) => (headers[name] = value));
    const answer = await serviceRequest({ method: 'POST', url: signed.url.toString(), headers, body }, requestOptions(options, context?.signal));
    if (answer.status >= 200 && answer.status < 300) {
      const id = xmlElement(answer.body, 'MessageId');
      return id ? { id } : {};
    }
    const code = serviceCode(xmlElement(answer.body, 'Code'));
    const error = answerError('sns', answer, code);
    if (!error.retryable && code !== undefined && RETRYABLE_CODES.has(code)) throw new ProviderError(error.message, { ...error.options, retryable: true });
    throw error;
  },
});
