/**
 * bench:stats's timed calls, the same list and the same discipline on either engine: three
 * warm-up calls, then `runs` timed ones, p50 and p95 of the whole HTTP round trip.
 */
import { createApp } from '../../src/app';
import type { Deps } from '../../src/compose/deps';
import { createAccount } from '../../src/modules/auth/accounts';
import { createApiKey } from '../../src/modules/auth/keys';

export interface Timing {
  p50: number;
  p95: number;
  /** The last response's length. */
  bytes: number;
  /** The last response's body: the same call on the other engine must answer the same. */
  body: string;
}

export interface StatCall {
  label: string;
  path: string;
}

export function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The statistics and the clicks list of the workspace and the busy link, in the order they are timed. */
export function statCalls(busy: string, deepAt: number, deepCursor: string): StatCall[] {
  return [
    { label: 'GET /workspace/stats?range=90d', path: '/workspace/stats?range=90d' },
    { label: 'GET /workspace/stats?range=30d', path: '/workspace/stats?range=30d' },
    { label: 'GET /workspace/stats?range=24h', path: '/workspace/stats?range=24h' },
    { label: 'GET /links/{busy}/stats?range=90d', path: `/links/${busy}/stats?range=90d` },
    { label: 'GET /links/{busy}/stats?range=24h', path: `/links/${busy}/stats?range=24h` },
    { label: 'GET /links/{busy}/stats?range=90d&bots=1', path: `/links/${busy}/stats?range=90d&bots=1` },
    { label: 'GET /links/{busy}/clicks (first page, 50)', path: `/links/${busy}/clicks?range=90d` },
    {
      label: `GET /links/{busy}/clicks (limit 200, after ${deepAt.toLocaleString('en')} rows)`,
      path: `/links/${busy}/clicks?range=90d&limit=200&cursor=${deepCursor}`,
    },
  ];
}

/** The calls PostgreSQL's targets name: p50 at most twice SQLite's. */
export const TARGET_CALLS = ['GET /workspace/stats?range=90d', 'GET /links/{busy}/stats?range=90d'];

export async function timeGet(base: string, key: string, path: string, runs: number): Promise<Timing> {
  const times: number[] = [];
  let last = '';
  for (let i = 0; i < runs + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
    last = body;
    if (i >= 3) times.push(ms); // the first three warm caches
  }
  return { p50: pct(times, 50), p95: pct(times, 95), bytes: last.length, body: last };
}

/** A real HTTP server of the app on `deps`, with a read key of a fresh account: what the timed calls go to. */
export async function servedWithReadKey(deps: Deps): Promise<{ base: string; key: string; stop(): Promise<void> }> {
  const account = await createAccount(deps, {
    email: `bench${Date.now()}@example.com`,
    password: 'benchmark password',
    superuser: false,
  });
  const { key } = await createApiKey(deps, { accountId: account.id, scope: 'read', expiresAt: null, name: 'bench' });
  const server = createApp(deps).listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  return {
    base: `http://127.0.0.1:${server.server!.port}/api/v1`,
    key,
    stop: async () => {
      await server.stop(true);
    },
  };
}
