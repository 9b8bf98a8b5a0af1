/**
 * Several Slink nodes in one test process on one PostgreSQL database: each a whole app with its
 * own deps (slug index, click pipeline, limiters, clock), sharing only the database, as separate
 * `slink serve` processes behind a load balancer do.
 */
import { expect } from 'bun:test';
import { makeTestApp, type TestApp } from './app';
import { freshPostgresUrl } from './postgres';

export interface Nodes {
  nodes: TestApp[];
  url: string;
  /** Moves every node's clock by `ms` (their clocks agree, as NTP keeps real ones close). */
  advance(ms: number): void;
  /** Checks no node reached its 500 branch, then closes them all. */
  close(): Promise<void>;
}

export async function startNodes(count: number, env: Record<string, string> = {}): Promise<Nodes> {
  const url = await freshPostgresUrl();
  const nodes: TestApp[] = [];
  for (let i = 0; i < count; i++) nodes.push(await makeTestApp(env, { engine: 'postgres', postgresUrl: url }));
  return {
    nodes,
    url,
    advance: (ms) => {
      for (const n of nodes) n.clock.advance(ms);
    },
    async close() {
      for (const n of nodes) {
        if (n.app.server) await n.app.stop(true);
        await n.close();
      }
      for (const n of nodes) expect(n.errors).toEqual([]);
    },
  };
}
