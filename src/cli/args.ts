/** Argument parsing for the subcommands: node:util's parseArgs, strict, its errors made usage errors. */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** A mistake in how the command was called: exit 2 (docs/behaviour.md, "Operator CLI"). */
export class UsageError extends Error {}

/**
 * Positionals plus the typed values of `options`. An unknown option, an option without its
 * value, or a value given to a flag throws a UsageError.
 */
export function parseCommand<const O extends ParseArgsOptionsConfig>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw err;
    // Node's message goes on with advice, in more sentences or lines; the operator gets one
    // line, lower-case like the CLI's own messages.
    const first = (err as Error).message.split(/\.\s|\n/)[0]!;
    throw new UsageError(first.charAt(0).toLowerCase() + first.slice(1));
  }
}

/** A comma-separated option (`--projects a,b`): its items, trimmed, or null when not given. */
export function listOption(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
