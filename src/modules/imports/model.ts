/** Import schemas: the single source for validation, TypeScript types and OpenAPI. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { nullable, oneOf } from '../../http/models';
import { SOURCE_NAMES } from './source';
import { IMPORT_STATUSES } from './table';

export const HISTORY_MODES = ['clicks', 'daily', 'none'] as const;
export type HistoryMode = (typeof HISTORY_MODES)[number];
export const CONFLICT_MODES = ['skip', 'rename'] as const;
export type ConflictMode = (typeof CONFLICT_MODES)[number];

const SourceField = oneOf(SOURCE_NAMES, {
  description: `Where the links come from: ${SOURCE_NAMES.join(', ')} (docs/operations.md, "Moving to Slink").`,
  error: fieldError('source', `source must be one of ${SOURCE_NAMES.join(', ')}`),
});

/** The options of a run, as the CLI's flags and the API's fields name them. */
const optionFields = {
  url: t.Optional(
    t.String({
      maxLength: 2048,
      description:
        "The source's address (its origin, or for yourls its yourls-api.php); for slink, another Slink's app origin. Kept without its query or user part.",
      error: fieldError('url', 'url must be an http(s) address of at most 2048 characters'),
    }),
  ),
  token: t.Optional(
    t.String({
      maxLength: 4096,
      description:
        "The source's API token: kept in the memory of the process running the import (on PostgreSQL also sealed to the other live nodes' keys, so one can take a crashed run over, until the run ends), never stored in clear, logged or answered.",
      error: fieldError('token', 'token must be a string of at most 4096 characters'),
    }),
  ),
  domain: t.Optional(
    t.String({
      maxLength: 253,
      description:
        "The Slink domain (host) every link goes to. Without it, a link goes to the Slink domain of its source domain's host, or to the default domain when the source names none.",
      error: fieldError('domain', 'domain must be the host of one of this Slink’s domains'),
    }),
  ),
  projectId: t.Optional(
    t.String({
      maxLength: 100,
      description: 'The project every link goes into.',
      error: fieldError('projectId', 'projectId must be a project id'),
    }),
  ),
  history: t.Optional(
    oneOf(HISTORY_MODES, {
      description:
        'clicks (default): the richest history the source has (visits, else daily counts, else the total); daily: daily counts (visits counted per day); none: links only.',
      error: fieldError('history', 'history must be clicks, daily or none'),
    }),
  ),
  onConflict: t.Optional(
    oneOf(CONFLICT_MODES, {
      description:
        'A slug taken on the target domain: skip (default) skips the link with its reason; rename gives it a new generated slug.',
      error: fieldError('onConflict', 'onConflict must be skip or rename'),
    }),
  ),
};

export const CreateImportBody = t.Object({
  source: SourceField,
  ...optionFields,
  dryRun: t.Optional(
    t.Boolean({
      description:
        'Read and decide every link, write nothing; the report says what would happen. In a form: the text true or false.',
      error: fieldError('dryRun', 'dryRun must be true or false'),
    }),
  ),
  file: t.Optional(
    t.File({
      description:
        'In a multipart form (csv and slink): the file to read, a CSV or a Slink export (NDJSON), at most 64 MiB; import a larger one with slink import --file.',
      error: fieldError('file', 'file must be a file sent in a multipart form'),
    }),
  ),
});
export type CreateImportInput = typeof CreateImportBody.static;

export const CreatedImportModel = t.Object({ id: t.String() }, { title: 'CreatedImport' });

const count = (description: string) => Type.Integer({ description });

export const ImportModel = t.Object(
  {
    id: t.String(),
    source: SourceField,
    url: nullable(t.String(), { description: "The source's address without its query or user part; null for a file." }),
    status: oneOf(IMPORT_STATUSES, {
      description:
        'running; done; failed (the source refused or could not be read, or the process running it stopped and no other node could take it over: "interrupted: run it again to resume"); cancelled (DELETE).',
    }),
    links: t.Object({
      seen: count('Source links read.'),
      created: count('Links made.'),
      skipped: count('Source links not made: refused by Slink’s rules, a slug taken, or imported before.'),
      existing: count(
        'Of the skipped, those an earlier run of the same source made (report outcome existing): already here, only their newer history added. A re-run that finds nothing new has every link here.',
      ),
      failed: count('Source links whose writing failed.'),
    }),
    clicks: t.Object({ imported: count('Clicks stored: visits, daily counts and totals.') }),
    errors: t.Array(
      t.Object({
        source: t.String({ description: 'The source link’s id; empty for the run itself.' }),
        reason: t.String(),
      }),
      {
        description: 'The first 100 errors and skips, with their reasons.',
      },
    ),
    options: t.Object({
      domain: nullable(t.String()),
      projectId: nullable(t.String()),
      history: oneOf(HISTORY_MODES),
      onConflict: oneOf(CONFLICT_MODES),
      dryRun: t.Boolean(),
    }),
    startedAt: Type.Integer(),
    endedAt: nullable(Type.Integer()),
  },
  { title: 'Import' },
);
export type ImportJson = typeof ImportModel.static;

export const ImportListModel = t.Object({ items: t.Array(ImportModel) });
