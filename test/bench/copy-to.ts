/**
 * `slink copy-to` benchmark (docs/operations.md, "Moving to PostgreSQL"): a seeded SQLite
 * database (bench:stats's, e.g. `bun run bench:stats --clicks 1000000 --only stats`, in
 * $TMPDIR/slink-bench-stats/stats.db) copied by the real CLI into a throwaway PostgreSQL cluster
 * with durable settings (pg-cluster.ts). The source is copied first (`VACUUM INTO`): copy-to
 * brings the file it reads up to date, and the seeded one is kept for the next run.
 * Run: bun run test/bench/copy-to.ts [--db <file>] [--batch <rows>]
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openPostgres } from '../../src/db/postgres/client';
import { BUN, cleanEnv, ROOT } from '../helpers/proc';
import { benchPostgres, PG_CLICK_TABLES } from './pg-cluster';
import { eachLine } from './stderr-lines';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: join(tmpdir(), 'slink-bench-stats', 'stats.db') },
    batch: { type: 'string', default: '50000' },
  },
});

const dir = mkdtempSync(join(tmpdir(), 'slink-bench-copy-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const source = join(dir, 'source.db');
const seeded = new Database(args.db!, { readonly: true });
seeded.query('VACUUM INTO ?').run(source);
const clicks = seeded
  .query<{ n: number }, []>(
    'SELECT (SELECT count(*) FROM click_tail) + (SELECT coalesce(sum(count), 0) FROM click_blocks) AS n',
  )
  .get()!.n;
const buckets = seeded.query<{ n: number }, []>('SELECT count(*) AS n FROM rollups').get()!.n;
seeded.close();

const pg = await benchPostgres();
const started = performance.now();
const proc = Bun.spawn([BUN, 'run', 'src/index.ts', 'copy-to', pg.url, '--batch', args.batch!], {
  cwd: ROOT,
  env: cleanEnv({ SLINK_DB: source }),
  stdout: 'pipe',
  stderr: 'pipe',
});
// Progress lines with the time they arrived: where the time goes.
const steps: string[] = [];
const reader = eachLine(proc.stderr, (line) =>
  steps.push(`${((performance.now() - started) / 1000).toFixed(1)} s  ${line}`),
);
const stdout = await new Response(proc.stdout).text();
const code = await proc.exited;
await reader;
const seconds = (performance.now() - started) / 1000;
const sql = openPostgres(pg.url, 1);
const sizes = await sql`SELECT relname AS name, pg_total_relation_size(oid) AS bytes FROM pg_class
  WHERE relname = ANY(${sql.array(PG_CLICK_TABLES, 'text')}::text[]) AND relkind = 'r'`;
await sql.close();
pg.stop();

console.log(steps.join('\n'));
console.log(stdout.trimEnd());
console.log(
  `\nexit ${code}: ${clicks} clicks, ${buckets} buckets in ${seconds.toFixed(1)} s (${Math.round(clicks / seconds)} clicks/s overall, verification included)`,
);
for (const s of sizes) console.log(`${s.name}: ${(Number(s.bytes) / 1e6).toFixed(1)} MB`);
