/**
 * What the authorisation check costs an API request (docs/performance.md, "Authorisation"):
 *
 * (a) in isolation: the guard's three steps (actionOf: the route's action; accessOf: who is
 *     asking; refusal: the matrix's answer) over many iterations, against the same loop doing
 *     nothing, in nanoseconds per request;
 * (b) through the app: GET /api/v1/me and GET /api/v1/links/{id} with a key, through app.handle
 *     on a SQLite file, with the route's authorisation and without it (authorisationBench.skip,
 *     set only here), in pairs in one run, microseconds per request and the ratio.
 *
 * Redirects never reach the check: the app's one request hook answers a short link before either
 * guard runs (app.ts; test/modules/access/route-actions.test.ts holds it).
 *
 *   bun run bench:access [-- --iterations 1000000 --rounds 5 --requests 5000]
 */
import { parseArgs } from 'node:util';
import { authorisationBench } from '../../src/http/auth';
import { actionOf } from '../../src/http/route-actions';
import { accessOf, refusal } from '../../src/modules/access/public';
import { createApiKey } from '../../src/modules/auth/keys';
import { api, makeAccount, makeTestApp } from '../helpers/app';

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    iterations: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '5' },
  },
});
const ITERATIONS = Number(values.iterations);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 2) => n.toFixed(digits);

const t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' });
const account = await makeAccount(t, { role: 'editor', projects: null });
const made = await createApiKey(t.deps, { accountId: account.id, scope: 'write', name: 'bench' });
const link = await api(t, 'POST', '/links', { key: made.key, body: { destination: 'https://example.com/bench' } });
if (link.status !== 201) throw new Error(`could not make a link: ${link.status} ${link.text}`);
const linkPath = `/api/v1/links/${link.body.id}`;

// (a) The three steps alone, on the principal the guard would have.
const principal = { account, key: made.row };
let sink = 0;
function steps(n: number): number {
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const action = actionOf('GET', linkPath)!;
    const access = accessOf(principal, 'api');
    if (refusal(access, action) === null) sink++;
  }
  return performance.now() - start;
}
function empty(n: number): number {
  const start = performance.now();
  for (let i = 0; i < n; i++) if (linkPath.length > i) sink++;
  return performance.now() - start;
}
steps(ITERATIONS / 10);
empty(ITERATIONS / 10);
const stepTimes: number[] = [];
const emptyTimes: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  stepTimes.push(steps(ITERATIONS));
  emptyTimes.push(empty(ITERATIONS));
}
const isolatedNs = ((median(stepTimes) - median(emptyTimes)) * 1e6) / ITERATIONS;
console.log(
  `(a) actionOf + accessOf + refusal, median of ${ROUNDS} x ${ITERATIONS}: ${fmt(isolatedNs, 0)} ns per request`,
);

// (b) The same request through the app, with and without the route's authorisation: in pairs,
// one of each back to back (which goes first alternates), so a busy moment of the machine falls
// on both; the medians of each and of the pairs' differences.
async function once(path: string, skip: boolean): Promise<number> {
  authorisationBench.skip = skip;
  const start = performance.now();
  const res = await t.app.handle(new Request(`http://localhost${path}`, { headers }));
  await res.arrayBuffer();
  const took = (performance.now() - start) * 1000;
  authorisationBench.skip = false;
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return took;
}
const headers = { authorization: `Bearer ${made.key}` };

for (const path of ['/api/v1/me', linkPath]) {
  for (let i = 0; i < 200; i++) await once(path, i % 2 === 0);
  const withCheck: number[] = [];
  const without: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const first = i % 2 === 0;
    const x = await once(path, !first);
    const y = await once(path, first);
    const [a, b] = first ? [x, y] : [y, x];
    withCheck.push(a);
    without.push(b);
    added.push(a - b);
  }
  const a = median(withCheck);
  const b = median(without);
  const label = path === linkPath ? 'GET /api/v1/links/{id}' : 'GET /api/v1/me';
  console.log(
    `(b) ${label}, ${REQUESTS} pairs: median ${fmt(a)} us with the check, ${fmt(b)} us without; ` +
      `median difference ${fmt(median(added))} us, ratio ${fmt(a / b, 3)}`,
  );
}

await t.close();
if (sink === -1) console.log(sink);
