/**
 * Redirect throughput with link rules on a quarter of the links (docs/performance.md, "Link
 * rules"), under wrk as the redirect benchmark drives it: the real dist/slink on two databases
 * seeded with the same 100,000 links, one of them with three rules on every fourth link, and the
 * bare server of the same slugs, in one run, alternating bare, without rules, with rules.
 *
 * The rules read what rules read (the device from the agent, the languages, the query); on the
 * benchmark's traffic (test/bench/redirect.lua: mixed agents, ~15% crawlers) the device rule
 * matches its phones and tablets, the others never, so most visits of a rule link evaluate all
 * three and some are sent to the rule's destination (a click target of their own).
 *
 *   bun run bench:rules [-- --seconds 10 --links 100000 --rounds 3 --skip-build]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Rule } from '../../src/modules/links/rules';
import { benchDeps, seedLinks } from './seed-links';
import { buildBinary, ensureWrk, int, median, runWrk, waitForStatus } from './wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    links: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const LINKS = Number(values.links);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = 64;
const ROOT = join(import.meta.dir, '..', '..');
const BINARY = join(ROOT, 'dist', 'slink');
const PORTS = { bare: 18_321, plain: 18_322, rules: 18_323 } as const;

const QUARTER_RULES: Rule[] = [
  { when: { device: ['tablet', 'mobile'] }, destination: 'https://m.example.org/app' },
  { when: { language: ['ja'] }, destination: 'https://example.jp/' },
  { when: { query: { src: 'x' } }, destination: 'https://example.org/from-x' },
];

const shape = (withRules: boolean) => (i: number) => ({
  destination: `https://www.example.org/articles/${i}`,
  rules: withRules && i % 4 === 0 ? QUARTER_RULES : undefined,
});

ensureWrk();
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-rules-'));
const procs: Bun.Subprocess[] = [];
try {
  if (!values['skip-build']) buildBinary(ROOT);
  const plainDb = join(dir, 'plain.db');
  const rulesDb = join(dir, 'rules.db');
  const plainDeps = benchDeps(plainDb);
  const slugs = await seedLinks(plainDeps, LINKS, shape(false));
  const targets: [string, string][] = [];
  await plainDeps.linkIndex.loadAll();
  for (const slug of slugs) targets.push([slug, (await plainDeps.linkIndex.get(slug))!.base.location]);
  await plainDeps.stores.close();
  const rulesDeps = benchDeps(rulesDb);
  await seedLinks(rulesDeps, LINKS, shape(true), slugs);
  await rulesDeps.stores.close();
  console.log(`seeded ${int(LINKS)} links twice, a quarter with three rules in the second`);
  const slugsFile = join(dir, 'slugs.txt');
  const targetsFile = join(dir, 'targets.json');
  writeFileSync(slugsFile, `${slugs.join('\n')}\n`);
  writeFileSync(targetsFile, JSON.stringify(targets));

  const env = (db: string, port: number) => ({
    ...(process.env as Record<string, string>),
    SLINK_DB: db,
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_TRUST_PROXY: '1',
  });
  procs.push(
    Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), targetsFile, String(PORTS.bare)], { stdout: 'ignore' }),
    Bun.spawn([BINARY], { env: env(plainDb, PORTS.plain), stdout: 'ignore', stderr: 'inherit' }),
    Bun.spawn([BINARY], { env: env(rulesDb, PORTS.rules), stdout: 'ignore', stderr: 'inherit' }),
  );
  await waitForStatus(`http://127.0.0.1:${PORTS.bare}/${slugs[0]}`, 302);
  await waitForStatus(`http://127.0.0.1:${PORTS.plain}/healthz`, 200);
  await waitForStatus(`http://127.0.0.1:${PORTS.rules}/healthz`, 200);
  // Both nodes load their links in the background: a warm-up run each, not counted.
  await Bun.sleep(3000);
  const rates: Record<keyof typeof PORTS, number[]> = { bare: [], plain: [], rules: [] };
  const p99: Record<keyof typeof PORTS, number[]> = { bare: [], plain: [], rules: [] };
  for (let round = -1; round < ROUNDS; round++)
    for (const side of ['bare', 'plain', 'rules'] as const) {
      const { result } = await runWrk({
        port: PORTS[side],
        connections: CONNECTIONS,
        seconds: round < 0 ? 3 : SECONDS,
        slugsFile,
        outFile: join(dir, `wrk-${side}-${round}.json`),
      });
      if (result.status_errors > 0 || result.timeouts > 0)
        console.log(`  ! ${side}: ${result.status_errors} non-3xx answers, ${result.timeouts} timeouts`);
      if (round < 0) continue;
      const rps = result.requests / (result.duration_us / 1e6);
      rates[side].push(rps);
      p99[side].push(result.p99_us / 1000);
      console.log(`  ${side} run ${round + 1}: ${int(rps)} req/s, p99 ${(result.p99_us / 1000).toFixed(1)} ms`);
    }
  const bare = median(rates.bare);
  const plain = median(rates.plain);
  const rules = median(rates.rules);
  const lines = [
    `| ${int(LINKS)} links, wrk ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} | req/s (median) | / bare | / no rules | p99 (median) |`,
    '|---|---|---|---|---|',
    `| bare Bun.serve | ${int(bare)} | 1.00 | | ${median(p99.bare).toFixed(1)} ms |`,
    `| Slink, no rules | ${int(plain)} | ${(plain / bare).toFixed(2)} | 1.00 | ${median(p99.plain).toFixed(1)} ms |`,
    `| Slink, a quarter of the links with three rules | ${int(rules)} | ${(rules / bare).toFixed(2)} | ${(rules / plain).toFixed(3)} | ${median(p99.rules).toFixed(1)} ms |`,
  ];
  console.log(`\n${lines.join('\n')}`);
} finally {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
}
