/**
 * `slink import <source> [--url <origin>] [--token <t>] [--file <path>] [--domain <host>]
 * [--project <id>] [--history clicks|daily|none] [--on-conflict skip|rename] [--dry-run]`
 * (docs/operations.md, "Importing links"): the same run as POST /imports, in this process, as
 * the operator (audited via cli). Progress after each page on stderr; the summary on stdout;
 * exit 1 unless the run is done. The token is never printed.
 */
import { existsSync } from 'node:fs';
import type { BaseDeps } from '../compose/deps';
import { cliImportDeps } from '../compose/imports';
import { AppError } from '../lib/errors';
import { printable } from '../lib/text';
import { OPERATOR } from '../modules/access/public';
import {
  CONFLICT_MODES,
  cancelImport,
  HISTORY_MODES,
  type RunProgress,
  SOURCE_NAMES,
  type SourceName,
  startImport,
} from '../modules/imports/public';
import { parseCommand, UsageError } from './args';
import type { CliIo } from './io';

const USAGE =
  'usage: slink import <source> [--url <origin>] [--token <t>] [--file <path>] [--domain <host>] [--project <id>] [--history clicks|daily|none] [--on-conflict skip|rename] [--dry-run]';

/** The run ended otherwise than done: exit 1, its summary already printed. */
export class ImportNotDone extends Error {}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** The command's option for each field the import's checks may name. */
const OPTIONS: Record<string, string> = {
  url: '--url',
  token: '--token',
  file: '--file',
  domain: '--domain',
  projectId: '--project',
  history: '--history',
  onConflict: '--on-conflict',
  dryRun: '--dry-run',
};

/** A refused input's message (worded for the API and the dashboard too) followed by the option that gave it. */
function namingOption(err: unknown): never {
  const option = err instanceof AppError && err.field !== null ? OPTIONS[err.field] : undefined;
  throw option === undefined
    ? err
    : new AppError((err as AppError).code, `${(err as AppError).message} (${option})`, (err as AppError).field);
}

/** The skipped that an earlier run made are said apart: a re-run's are no refusal. */
const counts = (p: RunProgress) =>
  `${p.linksSeen} links read: ${p.linksCreated} created, ${p.linksSkipped} skipped${p.linksExisting > 0 ? ` (${p.linksExisting} already imported)` : ''}, ${p.linksFailed} failed; ${p.clicksImported} clicks imported`;

/** A run that found every link made by an earlier run, said plainly (its skips are not refusals). */
const nothingNew = (p: RunProgress) =>
  p.linksSeen > 0 && p.linksExisting === p.linksSeen
    ? `import: nothing new: all ${p.linksSeen} links were already imported by an earlier run of this source`
    : null;

export async function importCommand(base: BaseDeps, argv: string[], io: CliIo): Promise<void> {
  const { positionals, values } = parseCommand(argv, {
    url: { type: 'string' },
    token: { type: 'string' },
    file: { type: 'string' },
    domain: { type: 'string' },
    project: { type: 'string' },
    history: { type: 'string' },
    'on-conflict': { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const source = oneOf(positionals[0], SOURCE_NAMES, 'the source') as SourceName;
  const history = oneOf(values.history, HISTORY_MODES, '--history') ?? 'clicks';
  const onConflict = oneOf(values['on-conflict'], CONFLICT_MODES, '--on-conflict') ?? 'skip';
  if (values.file !== undefined && !existsSync(values.file)) throw new UsageError(`no file at ${values.file}`);
  const deps = await cliImportDeps(base);
  const { id, done } = await startImport(
    deps,
    OPERATOR,
    {
      source,
      url: values.url ?? null,
      token: values.token ?? null,
      file: values.file === undefined ? null : Bun.file(values.file),
      domain: values.domain ?? null,
      projectId: values.project ?? null,
      history,
      onConflict,
      dryRun: values['dry-run'] === true,
    },
    (progress) => io.err(`import: ${counts(progress)}`),
  ).catch(namingOption);
  io.err(`import: ${id} started`);
  // Ctrl-C or a SIGTERM stops the run at its page boundary, cancelled: a re-run resumes there.
  const stop = () => {
    io.err(`import: stopping ${id} at the end of its page`);
    void cancelImport(deps, id).catch(() => {});
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const end = await done.finally(() => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  });
  const dry = values['dry-run'] === true ? ' (dry run: nothing written)' : '';
  io.out(`${id} ${end.status}${dry}: ${counts(end.progress)}`);
  const plain = end.status === 'done' ? nothingNew(end.progress) : null;
  if (plain !== null) io.err(plain);
  // What the source wrote is shown, never obeyed by the terminal.
  for (const e of end.progress.errors.slice(0, 20)) io.err(printable(`import: ${e.source || source}: ${e.reason}`));
  if (end.status !== 'done') throw new ImportNotDone(`import ${id} ${end.status}`);
}
