import { sign, type KeyObject } from 'node:crypto';
import { CallbackRefused } from '@tidings/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSnsSignature, MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE, MAX_SNS_CERTIFICATES, snsCertificates, snsUrl, type SnsCertificateTrust } from '../src/sns-signature.js';
import { fakeService, type ServiceReply } from './services/email-fake-server.js';
import { issuedCertificate } from './services/issued-certificate.js';
import { local, started } from './started.js';

const certPath = (n: number | string = 1) => `/SimpleNotificationService-${String(n).padStart(32, '0')}.pem`;
const certUrl = (n: number | string = 1, host = 'sns.eu-west-1.amazonaws.com') => `https://${host}${certPath(n)}`;

/** A local SNS answering certificate paths from `files` (path → body, or a reply), 404 otherwise. */
async function sns(files: Record<string, string | ServiceReply>, trust: SnsCertificateTrust = {}) {
  const service = await started(
    fakeService((call): ServiceReply => {
      const file = files[call.path];
      if (file === undefined) return { status: 404, body: 'not found' };
      return typeof file === 'string' ? { status: 200, headers: { 'content-type': 'application/x-x509-ca-cert' }, body: file } : file;
    }),
  );
  return { service, certificates: snsCertificates(local(service.url), trust), fetches: (path = certPath()) => service.calls.filter((call) => call.path === path).length };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CallbackRefused);
  return (error as Error).message;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SigningCertURL', () => {
  it('is https on sns.<region>.amazonaws.com, GovCloud and China (.com.cn, cn- regions only) included', () => {
    for (const host of ['sns.eu-west-1.amazonaws.com', 'sns.us-east-1.amazonaws.com', 'sns.ap-southeast-3.amazonaws.com', 'sns.us-gov-west-1.amazonaws.com', 'sns.cn-north-1.amazonaws.com.cn', 'sns.cn-northwest-1.amazonaws.com.cn']) {
      expect(snsUrl(certUrl(1, host), 'the SigningCertURL')).toBe(certUrl(1, host));
    }
  });

  it('never an S3 bucket host (anyone can own bucket "sns"), another partition, a port, credentials, or plain http', async () => {
    const refused = [
      'sns.s3.amazonaws.com',
      'sns.s3-eu-west-1.amazonaws.com',
      'sns.s3-external-1.amazonaws.com',
      'sns.s3-website-us-east-1.amazonaws.com',
      'sns.s3.eu-west-1.amazonaws.com',
      'sns.s3-accesspoint.eu-west-1.amazonaws.com',
      'sns.eu-west-1.amazonaws.com.cn',
      'sns.cn-north-1.amazonaws.com',
      'sns.eu-west-1.amazonaws.com.evil.example',
      'sns.eu-west-1.amazonaws.com:8443',
      'user:pass@sns.eu-west-1.amazonaws.com',
    ].map((host) => certUrl(1, host));
    const { certificates, service } = await sns({});
    for (const url of [...refused, 'http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem', 'not a url']) {
      expect(() => snsUrl(url, 'the SigningCertURL'), url).toThrow(/SigningCertURL is not an https URL on an sns.<region>.amazonaws.com host/);
      expect(await refusal(certificates.get(url))).toMatch(/not an https URL/);
    }
    // Only SNS's certificate files, and nothing was fetched for any of these.
    for (const path of ['/cert.pem', '/SimpleNotificationService-xyz.pem', `/SimpleNotificationService-${'a'.repeat(65)}.pem`, `${certPath()}?x=1`]) {
      expect(await refusal(certificates.get(`https://sns.eu-west-1.amazonaws.com${path}`))).toMatch(/not an SNS signing certificate/);
    }
    expect(service.calls).toHaveLength(0);
  });
});

describe('the certificate at the SigningCertURL', () => {
  it('is issued to the name SNS signs with in its region, exactly (no wildcard), as AWS’s SDK for Java v2 expects', async () => {
    const files = {
      [certPath(1)]: issuedCertificate('sns.amazonaws.com').pem,
      [certPath(2)]: issuedCertificate('attacker.example').pem,
      [certPath(3)]: issuedCertificate('*.amazonaws.com').pem,
      [certPath(4)]: issuedCertificate('sns-signing.eu-south-1.amazonaws.com').pem,
      [certPath(5)]: issuedCertificate('sns-cn-north-1.amazonaws.com.cn').pem,
      [certPath(6)]: issuedCertificate('sns-us-gov-west-1.amazonaws.com').pem,
    };
    const { certificates } = await sns(files);
    await expect(certificates.get(certUrl(1))).resolves.toBeDefined();
    expect(await refusal(certificates.get(certUrl(2)))).toMatch(/not issued to SNS \(sns\.amazonaws\.com or sns-signing\.eu-west-1\.amazonaws\.com\)/);
    expect(await refusal(certificates.get(certUrl(3)))).toMatch(/not issued to SNS/);
    await expect(certificates.get(certUrl(4, 'sns.eu-south-1.amazonaws.com'))).resolves.toBeDefined();
    await expect(certificates.get(certUrl(5, 'sns.cn-north-1.amazonaws.com.cn'))).resolves.toBeDefined();
    // China's certificate names China: the global name is not one there.
    expect(await refusal(certificates.get(certUrl(1, 'sns.cn-north-1.amazonaws.com.cn')))).toMatch(/not issued to SNS \(sns-cn-north-1\.amazonaws\.com\.cn\)/);
    await expect(certificates.get(certUrl(6, 'sns.us-gov-east-1.amazonaws.com'))).resolves.toBeDefined();
  });

  it('that carries its chain must lead to a trusted root (Node’s root CAs by default), each link issued and signed by the next', async () => {
    const root = issuedCertificate('Test Root CA', { ca: true });
    const intermediate = issuedCertificate('Test Intermediate CA', { issuer: root, ca: true });
    const leaf = issuedCertificate('sns.amazonaws.com', { issuer: intermediate });
    const stranger = issuedCertificate('Test Intermediate CA', { ca: true });
    const notCa = issuedCertificate('Test Intermediate CA', { issuer: root });
    const underNotCa = issuedCertificate('sns.amazonaws.com', { issuer: notCa });
    const files = {
      [certPath(1)]: leaf.pem + intermediate.pem,
      [certPath(2)]: leaf.pem + intermediate.pem + root.pem,
      // An intermediate of the same name with another key: the leaf's signature does not verify.
      [certPath(3)]: leaf.pem + stranger.pem,
      [certPath(4)]: underNotCa.pem + notCa.pem,
    };
    const trusted = await sns(files, { roots: [root.pem] });
    await expect(trusted.certificates.get(certUrl(1))).resolves.toBeDefined();
    await expect(trusted.certificates.get(certUrl(2))).resolves.toBeDefined();
    expect(await refusal(trusted.certificates.get(certUrl(3)))).toMatch(/not trusted: certificate 1 of the file is not issued by the CA after it/);
    expect(await refusal(trusted.certificates.get(certUrl(4)))).toMatch(/not trusted: certificate 1 of the file is not issued by the CA after it/);
    // Under Node's own root CAs, the test's root is no root.
    const { certificates } = await sns(files);
    expect(await refusal(certificates.get(certUrl(1)))).toMatch(/not trusted: its chain does not lead to a trusted root CA/);
    expect(await refusal(certificates.get(certUrl(2)))).toMatch(/does not lead to a trusted root CA/);
  });

  it('is fetched once per URL, and refused (never an error) when the answer is not one or there is no answer', async () => {
    const good = issuedCertificate('sns.amazonaws.com');
    const { certificates, fetches } = await sns({ [certPath(1)]: good.pem, [certPath(2)]: 'not a certificate', [certPath(3)]: { status: 503, body: 'busy' } });
    for (let i = 0; i < 20; i++) await certificates.get(certUrl(1));
    expect(fetches(certPath(1))).toBe(1);
    // An answer that is no certificate (or a 404) is remembered: asked again, nothing is fetched.
    expect(await refusal(certificates.get(certUrl(2)))).toMatch(/holds no X\.509 certificate/);
    expect(await refusal(certificates.get(certUrl(2)))).toMatch(/holds no X\.509 certificate/);
    expect(fetches(certPath(2))).toBe(1);
    expect(await refusal(certificates.get(certUrl(9)))).toMatch(/answered 404/);
    expect(await refusal(certificates.get(certUrl(9)))).toMatch(/answered 404/);
    expect(fetches(certPath(9))).toBe(1);
    // A 5xx is refused too, and tried again next time.
    expect(await refusal(certificates.get(certUrl(3)))).toMatch(/answered 503/);
    expect(await refusal(certificates.get(certUrl(3)))).toMatch(/answered 503/);
    expect(fetches(certPath(3))).toBe(2);
    // No answer at all (nothing listens): a refusal naming it, not a ProviderError.
    const nowhere = snsCertificates({ baseUrl: 'http://127.0.0.1:9', network: { allow: ['127.0.0.1'] }, timeoutMs: 2_000 });
    expect(await refusal(nowhere.get(certUrl(1)))).toMatch(/SigningCertURL could not be fetched/);
  });

  it('is not valid before or after its dates (on the clock given)', async () => {
    const good = issuedCertificate('sns.amazonaws.com');
    const { certificates } = await sns({ [certPath(1)]: good.pem });
    await expect(certificates.get(certUrl(1))).resolves.toBeDefined();
    expect(await refusal(certificates.get(certUrl(1), Date.now() + 2 * 86_400_000))).toMatch(/not valid now/);
    expect(await refusal(certificates.get(certUrl(1), Date.now() - 2 * 3_600_000))).toMatch(/not valid now/);
  });

  it(`unknown URLs cost at most ${MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE} fetches a minute; at most ${MAX_SNS_CERTIFICATES} certificates are kept, the least recently used dropped`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const files: Record<string, string> = {};
    const pem = issuedCertificate('sns.amazonaws.com').pem;
    for (let n = 1; n <= MAX_SNS_CERTIFICATES + 1; n++) files[certPath(n)] = pem;
    const { certificates, service } = await sns(files);
    // A caller inventing URLs: 25 of them, of which only the first 10 are fetched.
    const invented = await Promise.all(Array.from({ length: 25 }, (_, i) => refusal(certificates.get(certUrl(`f${i}`)))));
    expect(invented.filter((m) => /answered 404/.test(m))).toHaveLength(MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE);
    expect(invented.filter((m) => /more than 10 new SigningCertURLs in a minute; this one was not fetched/.test(m))).toHaveLength(25 - MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE);
    expect(service.calls).toHaveLength(MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE);
    // A minute later, new URLs are fetched again: fill the cache, 10 a minute.
    for (let n = 1; n <= MAX_SNS_CERTIFICATES + 1; n++) {
      if ((n - 1) % MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE === 0) vi.setSystemTime(Date.now() + 61_000);
      await certificates.get(certUrl(n));
      // The first stays most recently used.
      await certificates.get(certUrl(1));
    }
    const fetched = (n: number) => service.calls.filter((call) => call.path === certPath(n)).length;
    expect(fetched(1)).toBe(1);
    // Certificate 2 was the least recently used when the 33rd came: dropped, fetched again.
    vi.setSystemTime(Date.now() + 61_000);
    await certificates.get(certUrl(2));
    expect(fetched(2)).toBe(2);
    await certificates.get(certUrl(MAX_SNS_CERTIFICATES + 1));
    expect(fetched(MAX_SNS_CERTIFICATES + 1)).toBe(1);
  });
});

describe('checkSnsSignature', () => {
  const signedMessage = (key: KeyObject, fields: Record<string, string>) => {
    const keys = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'].filter((k) => fields[k] !== undefined);
    const signature = sign('sha256', Buffer.from(keys.map((k) => `${k}\n${fields[k]}\n`).join('')), key).toString('base64');
    return { ...fields, SignatureVersion: '2', Signature: signature, SigningCertURL: certUrl(1) };
  };

  it('takes a message signed with the SNS certificate, and refuses one altered, of an unsigned type, or whose certificate is not SNS’s', async () => {
    const good = issuedCertificate('sns.amazonaws.com');
    const other = issuedCertificate('attacker.example');
    const fields = { Type: 'Notification', MessageId: 'm-1', TopicArn: 'arn:aws:sns:eu-west-1:123456789012:t', Message: '{"eventType":"Delivery"}', Timestamp: '2026-06-01T12:00:00.000Z' };
    const { certificates } = await sns({ [certPath(1)]: good.pem });
    await expect(checkSnsSignature(signedMessage(good.privateKey, fields), 'Notification', certificates)).resolves.toBeUndefined();
    expect(await refusal(checkSnsSignature({ ...signedMessage(good.privateKey, fields), Message: '{"eventType":"Bounce"}' }, 'Notification', certificates))).toMatch(/Signature does not match/);
    expect(await refusal(checkSnsSignature(signedMessage(good.privateKey, fields), 'Other', certificates))).toMatch(/not one SNS signs/);
    const { certificates: forged } = await sns({ [certPath(1)]: other.pem });
    expect(await refusal(checkSnsSignature(signedMessage(other.privateKey, fields), 'Notification', forged))).toMatch(/not issued to SNS/);
  });
});
