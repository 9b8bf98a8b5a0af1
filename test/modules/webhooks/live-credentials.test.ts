/**
 * A live stream lives no longer than the credential it was opened with: a key revoked or
 * expired, its account disabled, a session signed out ends it before any later event goes out,
 * on the node holding it whichever node the change went through; and every stream ends after its
 * lifetime.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sessionCookieName } from '../../../src/http/session';
import { OPERATOR } from '../../../src/modules/access/public';
import { updateAccount } from '../../../src/modules/auth/admin';
import { revokeApiKey } from '../../../src/modules/auth/keys';
import { signOut, startSession } from '../../../src/modules/sessions/service';
import { STREAM_LIFETIME_MS } from '../../../src/modules/webhooks/live-hub';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { type Frame, openEvents } from '../../helpers/event-stream';
import { startNodes } from '../../helpers/nodes';

let t: TestApp;
let admin: Awaited<ReturnType<typeof makeKey>>;

beforeAll(async () => {
  t = await makeTestApp();
  admin = await makeKey(t, 'write', { superuser: true });
});
afterAll(() => disposeTestApp(t));

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
let made = 0;
const newLink = (app: TestApp = t) =>
  apiExpecting(app, admin.key, 'POST', '/links', { destination: `https://example.com/${++made}` });

/** The stream ends, sending no event: only comments (the reason) after the change. */
function expectEndedQuietly(frames: Frame[]): void {
  expect(frames.filter((f) => f.event !== undefined)).toEqual([]);
  expect(frames.at(-1)?.comment).toBe('the key or session of this stream no longer holds');
}

test('a revoked key: its stream ends before the next event', async () => {
  const { key, keyId } = await makeKey(t, 'read');
  const live = await openEvents(t.app, bearer(key));
  await newLink();
  expect((await live.event()).event).toBe('link.created');
  await revokeApiKey(t.deps, keyId);
  await newLink();
  expectEndedQuietly(await live.rest());
});

test('an expired key: its stream ends before the next event', async () => {
  const { key } = await makeKey(t, 'read', { expiresAt: t.clock.now() + 60_000 });
  const live = await openEvents(t.app, bearer(key));
  t.clock.advance(60_000);
  await newLink();
  expectEndedQuietly(await live.rest());
});

test("a disabled account: its key's stream ends before the next event", async () => {
  const { key, account } = await makeKey(t, 'read');
  const live = await openEvents(t.app, bearer(key));
  await updateAccount(t.deps, OPERATOR, account.id, { disabled: true });
  await newLink();
  expectEndedQuietly(await live.rest());
});

test('a signed-out session: its stream ends before the next event', async () => {
  const { account } = await makeKey(t, 'read');
  const { token, session } = await startSession(t.deps, account, null);
  const cookie = `${sessionCookieName(t.deps.config.appHost)}=${token}`;
  const live = await openEvents(t.app, { cookie });
  await newLink();
  expect((await live.event()).event).toBe('link.created');
  await signOut(t.deps, session.id);
  await newLink();
  expectEndedQuietly(await live.rest());
});

test('every stream ends after its lifetime, saying so; the client resumes with Last-Event-ID', async () => {
  const { key } = await makeKey(t, 'read');
  const live = await openEvents(t.app, bearer(key));
  t.clock.advance(STREAM_LIFETIME_MS);
  const frames = await live.rest();
  expect(frames.filter((f) => f.event !== undefined)).toEqual([]);
  expect(frames.at(-1)?.comment).toBe('this stream reached its lifetime: reconnect with Last-Event-ID');
});

test('a key revoked through one node ends its stream held on another (PostgreSQL)', async () => {
  const cluster = await startNodes(2);
  try {
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    const writer = await makeKey(a, 'write', { superuser: true });
    const { key, keyId } = await makeKey(a, 'read');
    const live = await openEvents(b.app, bearer(key));
    await apiExpecting(a, writer.key, 'POST', '/links', { destination: 'https://example.com/before' });
    expect((await live.event()).event).toBe('link.created');
    await revokeApiKey(a.deps, keyId);
    await apiExpecting(a, writer.key, 'POST', '/links', { destination: 'https://example.com/after' });
    expectEndedQuietly(await live.rest());
  } finally {
    await cluster.close();
  }
});
