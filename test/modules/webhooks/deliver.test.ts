/**
 * One delivery attempt against real receivers (Bun servers on loopback): signed headers that an
 * independent check accepts, 2xx success, other statuses and a hanging receiver as failures with
 * their reason, and loopback refused at connect unless private addresses are allowed.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { deliver } from '../../../src/modules/webhooks/deliver';
import { newWebhookSecret } from '../../../src/modules/webhooks/signature';

interface Seen {
  headers: Record<string, string>;
  body: string;
}
const seen: Seen[] = [];
let answer: () => Response | Promise<Response> = () => new Response('ok');
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    seen.push({ headers: Object.fromEntries(req.headers), body: await req.text() });
    return answer();
  },
});
afterAll(() => receiver.stop(true));

const secret = newWebhookSecret();
const body = JSON.stringify({ id: 'evt_1', type: 'link.created', timestamp: 1_800_000_000_000, data: { id: 'lnk_1' } });
const at = (path: string, over: Partial<Parameters<typeof deliver>[0]> = {}) =>
  deliver({
    url: `http://127.0.0.1:${receiver.port}${path}`,
    secret,
    eventId: 'evt_1',
    body,
    timestamp: 1_800_000_000,
    allowPrivate: true,
    ...over,
  });

describe('deliver', () => {
  test('a 2xx is success; the receiver gets the body and headers a Standard Webhooks check accepts', async () => {
    seen.length = 0;
    answer = () => new Response('thanks', { status: 202 });
    const outcome = await at('/hook?x=1');
    expect({ ok: outcome.ok, status: outcome.status, error: outcome.error, response: outcome.response }).toEqual({
      ok: true,
      status: 202,
      error: null,
      response: 'thanks',
    });
    expect(seen).toHaveLength(1);
    const { headers, body: got } = seen[0]!;
    expect(got).toBe(body);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1800000000');
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`evt_1.1800000000.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  test('another status is a failure naming it; only the start of a long answer is kept', async () => {
    answer = () => new Response('x'.repeat(10_000), { status: 500 });
    const outcome = await at('/hook');
    expect({ ok: outcome.ok, status: outcome.status, error: outcome.error, kept: outcome.response.length }).toEqual({
      ok: false,
      status: 500,
      error: 'answered 500',
      kept: 2048,
    });
  });

  test('an endless answer: its first 2 KB are kept, then the connection is closed, not read to the deadline', async () => {
    let cancelled: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const chunk = new Uint8Array(64 * 1024).fill(0x79);
    answer = () =>
      new Response(
        new ReadableStream({
          pull: (controller) => controller.enqueue(chunk),
          cancel: () => cancelled(),
        }),
        { status: 200 },
      );
    // Read to its end, the answer would have run into the deadline: a failure.
    const outcome = await at('/hook');
    expect({ ok: outcome.ok, status: outcome.status, error: outcome.error, response: outcome.response }).toEqual({
      ok: true,
      status: 200,
      error: null,
      response: 'y'.repeat(2048),
    });
    // The receiver sees its stream stop: the connection was closed.
    await closed;
  });

  test('a receiver that hangs is a failure at the deadline', async () => {
    answer = () => new Promise(() => {});
    const outcome = await at('/hook', { timeoutMs: 300 });
    expect({ ok: outcome.ok, status: outcome.status, error: outcome.error }).toEqual({
      ok: false,
      status: null,
      error: 'no answer within 0.3 s',
    });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
  });

  test('nothing listening is a failure with the connection error', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
    const port = closed.port;
    closed.stop(true);
    const outcome = await deliver({
      url: `http://127.0.0.1:${port}/`,
      secret,
      eventId: 'e',
      body,
      timestamp: 1,
      allowPrivate: true,
    });
    expect({ ok: outcome.ok, status: outcome.status }).toEqual({ ok: false, status: null });
    expect(outcome.error).toContain('ECONNREFUSED');
  });

  test('private addresses not allowed: loopback, by address or by a name resolving to it, is refused before connecting', async () => {
    seen.length = 0;
    answer = () => new Response('ok');
    for (const host of ['127.0.0.1', 'localhost']) {
      const outcome = await at('/hook', { url: `http://${host}:${receiver.port}/hook`, allowPrivate: false });
      expect({ ok: outcome.ok, status: outcome.status }).toEqual({ ok: false, status: null });
      expect(outcome.error).toContain('internal address');
    }
    expect(seen).toEqual([]);
  });
});
