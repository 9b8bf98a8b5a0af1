/**
 * Preloaded by `bun run start`, `bun run slink` (bun --preload) and `bun test` (bunfig.toml):
 * rebuilds the dashboard's assets when its sources changed, silently, in the same process and
 * before the app (which imports them) loads.
 */
import { buildDashboard } from '../build-dashboard';

try {
  await buildDashboard({ ifStale: true });
} catch (err) {
  console.error(`slink: the dashboard did not build: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
