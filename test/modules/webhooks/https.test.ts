/**
 * Delivery over https, against the real server process: a receiver with a self-signed
 * certificate (made here with openssl) is refused by default, the delivery log saying the
 * certificate is not trusted and the receiver getting nothing; the same server started with
 * NODE_EXTRA_CA_CERTS naming that certificate trusts it, and the delivery succeeds
 * (docs/operations.md, "Webhooks to an internal CA").
 */
import { afterAll, afterEach, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createLinkAt, freshDb, superuserWriteKey, tempDir } from '../../helpers/cli';
import { poll } from '../../helpers/full-disk';
import { BUN, cleanEnv, freePort, type RunningProcess, start, tool, waitHealthy } from '../../helpers/proc';
import { receiverAccepts, startReceiver } from '../../helpers/webhook-receiver';

/** A self-signed certificate for 127.0.0.1 and localhost, valid for a day. */
async function selfSigned(): Promise<{ cert: string; key: string }> {
  const dir = tempDir();
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const r = await tool([
    'openssl',
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'],
    ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
  ]);
  if (r.code !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { cert, key };
}

const pem = await selfSigned();
const receiver = startReceiver({ cert: Bun.file(pem.cert), key: Bun.file(pem.key) });
afterAll(() => receiver.stop());
let server: RunningProcess | undefined;
afterEach(() => server?.kill());

function serve(db: string, extra: Record<string, string> = {}): RunningProcess {
  const port = freePort();
  return start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_WEBHOOKS_ALLOW_PRIVATE: '1',
      ...extra,
    }),
  });
}

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const logOf = (base: string, key: string, hookId: string) =>
  poll(
    'the delivery log',
    async () => (await call(base, key, 'GET', `/webhooks/${hookId}/deliveries`)).body.items as any[],
    (items) => items.length > 0,
  );

test('a self-signed receiver is refused by default, and trusted once NODE_EXTRA_CA_CERTS names its certificate', async () => {
  const db = freshDb();
  const key = await superuserWriteKey(db);
  server = serve(db);
  await waitHealthy(server);
  const created = await call(server.base, key, 'POST', '/webhooks', { url: receiver.url, events: ['link.created'] });
  expect(created.status).toBe(201);
  const { id: hookId, secret } = created.body;
  const linkId = await createLinkAt(server.base, key, 'over-tls');

  const refused = await logOf(server.base, key, hookId);
  expect(refused.map((a) => [a.attempt, a.statusCode, a.error, a.response])).toEqual([
    [
      1,
      null,
      "the receiver's TLS certificate is not trusted: self signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)",
      '',
    ],
  ]);
  expect(receiver.received).toEqual([]);
  expect(await server.stop()).toBe(0);

  // The same database, the process told to trust the certificate: the delivery goes through.
  server = serve(db, { NODE_EXTRA_CA_CERTS: pem.cert });
  await waitHealthy(server);
  // The failed delivery is tried again by its schedule (about 5 s after the first attempt).
  const log = await poll(
    'the delivery log',
    async () => (await call(server!.base, key, 'GET', `/webhooks/${hookId}/deliveries`)).body.items as any[],
    (items) => items[0]?.statusCode === 200,
  );
  const [success, ...failures] = log;
  expect([success.statusCode, success.error, success.response]).toEqual([200, null, 'noted']);
  expect(failures.map((a) => a.error)).toEqual(failures.map(() => refused[0].error));
  expect(receiver.received).toHaveLength(1);
  const [delivery] = receiver.received;
  expect({ id: delivery!.headers['webhook-id'], type: delivery!.body.type, link: delivery!.body.data.id }).toEqual({
    id: refused[0].eventId,
    type: 'link.created',
    link: linkId,
  });
  expect(await receiverAccepts(secret, delivery!.headers, delivery!.raw)).toBe(true);
  expect(await server.stop()).toBe(0);
}, 60_000);
