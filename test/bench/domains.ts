/**
 * Several short domains for the redirect benchmark (`bun run bench -- --domains 20`): a copy of
 * the seeded database whose links are spread over that many domains (the i-th link on domain
 * i mod N, the default one among them), and the slugs files that send each request with its
 * link's Host, so that one domain and N domains answer the same requests.
 */
import { Database } from 'bun:sqlite';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The default domain's host in the benchmark (SLINK_SHORT_HOST's default names localhost). */
export const DEFAULT_HOST = 'localhost';

/** The host of the k-th of the benchmark's domains (0: the default). */
export const benchHost = (k: number) => (k === 0 ? DEFAULT_HOST : `d${k}.bench.example`);

/**
 * Copies the seeded database at `from` to `to` and moves its links over `count` domains; the
 * i-th of `slugs` goes to domain i mod count. Answers each slug's host, in the slugs' order.
 */
export function spreadOverDomains(from: string, to: string, slugs: readonly string[], count: number): string[] {
  const source = new Database(from);
  source.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  source.close();
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
  const db = new Database(to);
  const ids = [(db.query('SELECT id FROM domains WHERE is_default = 1').get() as { id: number }).id];
  const addDomain = db.query(
    'INSERT INTO domains (host, origin, is_default, created_at) VALUES (?, ?, 0, ?) RETURNING id',
  );
  const move = db.query('UPDATE links SET domain_id = ? WHERE domain_id = ? AND slug = ?');
  db.transaction(() => {
    for (let k = 1; k < count; k++)
      ids.push((addDomain.get(benchHost(k), `http://${benchHost(k)}`, Date.now()) as { id: number }).id);
    for (const [i, slug] of slugs.entries()) if (i % count !== 0) move.run(ids[i % count]!, ids[0]!, slug);
  })();
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return slugs.map((_, i) => benchHost(i % count));
}

/** A slugs file for redirect.lua whose lines carry each request's Host after the slug. */
export function writeHostedSlugs(file: string, slugs: readonly string[], hostOf: (i: number) => string): void {
  writeFileSync(file, `${slugs.map((slug, i) => `${slug} ${hostOf(i)}`).join('\n')}\n`);
}

/** Until the server's log says its links are all in memory (server.ts), at most `timeoutMs`. */
export async function waitForLinksInMemory(logFile: string, timeoutMs = 600_000): Promise<number> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const found = /(\d+) links in memory/.exec(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
    if (found) return Number(found[1]);
    if (performance.now() > until) throw new Error(`${logFile}: the links were not in memory in time`);
    await Bun.sleep(100);
  }
}
