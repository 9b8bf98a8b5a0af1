/**
 * A sign-in flood against the real server (docs/operations.md, "Sign-in throttling"): real
 * argon2id, counted through /metrics rather than timed. Once an address has failed 20 times,
 * every further sign-in from it is refused before its body is read or any password verified, the
 * verification slots are what the machine's cores allow, and the checks run on threads at the
 * lowest CPU priority.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { verificationSlots } from '../src/modules/sessions/throttle';
import { freshDb, PASSWORD, superuserWriteKey } from './helpers/cli';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from './helpers/proc';

const TOKEN = 'metrics-token-for-the-sign-in-flood';
const FLOODER = '203.0.113.9';
let server: RunningProcess;

beforeAll(async () => {
  const db = freshDb();
  await superuserWriteKey(db); // ops@example.com, with PASSWORD
  const port = freePort();
  server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_TRUST_PROXY: '1',
      SLINK_METRICS_TOKEN: TOKEN,
    }),
  });
  await waitHealthy(server);
}, 60_000);

afterAll(() => server?.kill());

function signIn(address: string, body: string): Promise<Response> {
  return fetch(`${server.base}/api/app/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body,
  });
}

const credentials = (email: string, password: string) => JSON.stringify({ email, password });

/** The sign-in lines of /metrics, as name{labels} -> value. */
async function signInMetrics(): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const found: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(slink_(?:password_verif|sign_in_refused)\S*) (\d+)$/.exec(line);
    // Without the node label every series carries (metrics.test.ts checks it).
    if (m) found[m[1]!.replace(/,?node="[^"]*"/, '').replace('{}', '')] = Number(m[2]);
  }
  return found;
}

test('20 failures verify 20 passwords; then nothing from that address is read or verified, the right password included', async () => {
  const slots = verificationSlots(navigator.hardwareConcurrency);
  expect(await signInMetrics()).toEqual({
    slink_password_verifications_total: 0,
    'slink_sign_in_refused_total{reason="throttled"}': 0,
    'slink_sign_in_refused_total{reason="busy"}': 0,
    slink_password_verification_slots: slots,
  });
  for (let i = 0; i < 20; i++) {
    // Five emails, four failures each (under their own limit of 5), one of them the real account's.
    const email = i % 5 === 0 ? 'ops@example.com' : `guess${i % 5}@example.com`;
    const res = await signIn(FLOODER, credentials(email, `wrong password ${i}`));
    expect({ status: res.status, code: ((await res.json()) as any).error.code }).toEqual({
      status: 401,
      code: 'sign_in_failed',
    });
  }
  const refusedBodies = [
    credentials('ops@example.com', PASSWORD),
    credentials('someone@example.com', 'another guess'),
    '{"email":',
    'not json at all',
  ];
  for (let i = 0; i < 40; i++) {
    const res = await signIn(FLOODER, refusedBodies[i % refusedBodies.length]!);
    expect(res.status).toBe(429);
    // The 15-minute window started at the first failure, a few seconds ago (a real clock here).
    const wait = Number(res.headers.get('retry-after'));
    expect(wait).toBeWithin(800, 901);
    expect(await res.json()).toEqual({
      error: { code: 'rate_limited', message: `Too many failed sign-ins: retry in ${wait} s`, field: null },
    });
  }
  expect(await signInMetrics()).toEqual({
    slink_password_verifications_total: 20,
    'slink_sign_in_refused_total{reason="throttled"}': 40,
    'slink_sign_in_refused_total{reason="busy"}': 0,
    slink_password_verification_slots: slots,
  });
  // Another address signs in as usual.
  const ok = await signIn('198.51.100.20', credentials('ops@example.com', PASSWORD));
  expect(ok.status).toBe(200);
  expect((await signInMetrics()).slink_password_verifications_total).toBe(21);
  // The checks ran on threads of their own at the lowest CPU priority, one per slot; every other
  // thread of the server (the event loop first) kept the normal one. A thread the runtime starts
  // from a check's thread (a collector's helper, started lazily) takes its niceness on Linux:
  // seen once on a loaded machine, so at least one a slot.
  const niceness = threadNiceness(server.proc.pid);
  expect(niceness.filter((n) => n === 19).length).toBeGreaterThanOrEqual(slots);
  expect(niceness.filter((n) => n !== 19 && n !== 0)).toEqual([]);
  expect(niceness[0]).toBe(0);
}, 60_000);

/** The niceness of each thread of a process (Linux /proc), the main thread first. */
function threadNiceness(pid: number): number[] {
  const tids = readdirSync(`/proc/${pid}/task`).map(Number);
  tids.sort((a, b) => (a === pid ? -1 : b === pid ? 1 : a - b));
  return tids.map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // After "pid (comm) ": state is field 3; nice is field 19.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}
