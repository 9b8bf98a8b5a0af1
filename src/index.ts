/**
 * Entry point of `bun run start`, `bun run slink` and dist/slink: no subcommand or `serve`
 * starts the service, anything else is an operator subcommand.
 */
import { runCli } from './cli';
import { ConfigError, loadConfig } from './config';
import { serveForever } from './server';

const args = process.argv.slice(2);

if (args.length === 0 || args[0] === 'serve') {
  try {
    serveForever(loadConfig());
  } catch (err) {
    console.error(`slink: ${err instanceof ConfigError ? err.message : String(err)}`);
    process.exit(1);
  }
} else {
  process.exit(await runCli(args));
}
