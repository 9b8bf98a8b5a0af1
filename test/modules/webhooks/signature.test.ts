/**
 * The Standard Webhooks signature, checked against the algorithm written again here with Web
 * Crypto (not the code under test): a receiver that follows the specification accepts it.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newWebhookSecret, signDelivery, webhookSignature } from '../../../src/modules/webhooks/signature';
import { receiverAccepts } from '../../helpers/webhook-receiver';

describe('webhook signature', () => {
  test('a new secret is whsec_ and 24 random bytes in base64, never the same twice', () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(a).not.toBe(b);
  });

  test('the specification example signs to its published signature', async () => {
    // The example of the Standard Webhooks specification (its README's "Verifying webhooks").
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(await webhookSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  test('a receiver verifying independently accepts a delivery, and refuses it changed in body, id, time or key', async () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'link.created', timestamp: 1, data: { slug: 'é"<' } });
    const signed = await signDelivery(secret, 'evt_1', 1_800_000_000, body);
    const { headers } = signed;
    // The bytes sent are the body, UTF-8.
    expect(Buffer.from(signed.body).toString('utf8')).toBe(body);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-timestamp']).toBe('1800000000');
    expect(await receiverAccepts(secret, headers, body)).toBe(true);
    expect(await receiverAccepts(secret, headers, `${body} `)).toBe(false);
    expect(await receiverAccepts(secret, { ...headers, 'webhook-id': 'evt_2' }, body)).toBe(false);
    expect(await receiverAccepts(secret, { ...headers, 'webhook-timestamp': '1800000001' }, body)).toBe(false);
    expect(await receiverAccepts(newWebhookSecret(), headers, body)).toBe(false);
  });
});

describe("the receiver's check in docs/behaviour.md", () => {
  test('accepts a delivery Slink signs now, refuses it tampered with or an hour old', async () => {
    const docs = await Bun.file(`${import.meta.dir}/../../../docs/behaviour.md`).text();
    const block = /```ts\n(import \{ createHmac[\s\S]*?)```/.exec(docs)?.[1];
    expect(block).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'slink-verify-'));
    const file = `${dir}/verify.ts`;
    await Bun.write(file, `${block}\nexport { verify };\n`);
    const { verify } = (await import(file)) as { verify: (s: string, h: Headers, b: string) => boolean };
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'evt_9', type: 'link.deleted', timestamp: 'x', data: { id: 'lnk_1' } });
    const now = Math.floor(Date.now() / 1000);
    const headers = async (at: number) => new Headers((await signDelivery(secret, 'evt_9', at, body)).headers);
    expect(verify(secret, await headers(now), body)).toBe(true);
    expect(verify(secret, await headers(now), `${body} `)).toBe(false);
    expect(verify(newWebhookSecret(), await headers(now), body)).toBe(false);
    expect(verify(secret, await headers(now - 3600), body)).toBe(false);
  });
});
