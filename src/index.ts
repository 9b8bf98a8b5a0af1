/**
 * Entry point of `bun run start`, `bun run slink` and dist/slink: no subcommand or `serve`
 * starts the service, anything else is an operator subcommand.
 */
// First: sets production mode before anything imports Elysia.
import './production-mode';
import { runCli } from './cli';
import { loadConfig } from './config';
import { serveForever } from './server';

const args = process.argv.slice(2);

if (args.length === 0 || args[0] === 'serve') {
  if (args.length > 1) {
    console.error(`slink: serve takes no arguments (configuration is SLINK_* variables, see slink --help)`);
    process.exit(2);
  }
  try {
    await serveForever(loadConfig());
  } catch (err) {
    // One line, like every other subcommand's failure (e.g. "Failed to start server. Is port 3000 in use?").
    console.error(`slink: ${err instanceof Error ? err.message : String(err)}`.split('\n')[0]);
    process.exit(1);
  }
} else {
  process.exit(await runCli(args));
}
