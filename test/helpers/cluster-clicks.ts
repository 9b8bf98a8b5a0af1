/**
 * A link's clicks as the API shows them through the balancer of a test cluster (cluster.ts): its
 * counters (clickCount, botCount) and its raw clicks (the rows of its CSV export, read with a
 * real RFC 4180 parser), for the multi-node tests' "every redirect is one stored click".
 */
import { expect } from 'bun:test';
import { parse } from 'csv-parse/sync';
import type { Cluster } from './cluster';

export interface ClickTotals {
  clickCount: number;
  botCount: number;
  /** Its CSV export, range=all&bots=1: every raw click, humans and bot hits. */
  exported: { clicks: number; bots: number };
}

/** The link's counters and its raw clicks, read through the balancer. */
export async function clickTotals(cluster: Cluster, linkId: string): Promise<ClickTotals> {
  const res = await cluster.api(`/links/${linkId}`);
  const link = (await res.json()) as any;
  expect(res.status).toBe(200);
  const csv = await cluster.api(`/links/${linkId}/export.csv?range=all&bots=1`);
  const text = await csv.text();
  expect({ status: csv.status, type: csv.headers.get('content-type') }).toEqual({
    status: 200,
    type: 'text/csv; charset=utf-8',
  });
  const [header, ...rows] = parse(text) as string[][];
  const bot = header!.indexOf('bot');
  expect({ first: header![0], bot: bot > 0 }).toEqual({ first: 'id', bot: true });
  const bots = rows.filter((r) => r[bot] === 'true').length;
  return { clickCount: link.clickCount, botCount: link.botCount, exported: { clicks: rows.length - bots, bots } };
}

/**
 * Polls until the link's clickCount + botCount reaches `total` (clicks are written within a
 * flush), then answers its totals; the caller asserts them.
 */
export async function waitClicks(cluster: Cluster, linkId: string, total: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const totals = await clickTotals(cluster, linkId);
    if (totals.clickCount + totals.botCount >= total || Date.now() > deadline) return totals;
    await Bun.sleep(100);
  }
}
