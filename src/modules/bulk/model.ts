/** Bulk schemas: the single source for validation, types and OpenAPI. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { nullable, ParamsModel, StringMapModel } from '../../http/models';
import { domainField, LinkModel, StatusModel, tagsField } from '../links/public';
import { projectIdField } from '../projects/public';
import { MAX_BULK_LINES } from './parse';

export const MAX_BULK_IDS = 200;

const TextField = t.String({
  description: `One URL per line, at most ${MAX_BULK_LINES} (blank lines ignored; CRLF, LF or CR). A tab after the URL makes the rest of the line its title. utm_ query keys of each URL are lifted into that link's params. A line repeated exactly is skipped.`,
  error: fieldError('text', 'text must be a string'),
});

export const BulkTextBody = t.Object(
  {
    text: TextField,
    tags: t.Optional(tagsField('Tags for every created link.')),
    projectId: t.Optional(
      projectIdField({ description: 'The project of every created link; null or omitted: unfiled.' }),
    ),
    params: t.Optional(ParamsModel),
    domain: t.Optional(domainField('The domain of every created link; default: the default domain.')),
    skipDuplicates: t.Optional(
      t.Boolean({
        description:
          'Default true: also skip a line whose destination already exists as a link (any status), or is the destination of an earlier line of this text. Destinations are compared after utm_ keys are lifted, so lines differing only in utm_ values count as duplicates; send false to create them all.',
        error: fieldError('skipDuplicates', 'skipDuplicates must be true or false'),
      }),
    ),
  },
  {
    description:
      'Every created link has the defaults of the redirect options and link rules (fallbackUrl null, redirectStatus 302, forwardQuery false, no password, rules [], preview null) and no expiresAt or clickLimit: bulk create sets none of them; PATCH /links/{id} does.',
  },
);
export type BulkTextInput = typeof BulkTextBody.static;

const BULK_STATUSES = ['create', 'repeat', 'duplicate', 'invalid'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

const BulkLineModel = t.Object(
  {
    line: Type.Integer({ description: 'Line number in the text, from 1 (blank lines counted).' }),
    input: t.String({ description: 'The line as given, trimmed.' }),
    status: t.UnionEnum([...BULK_STATUSES], {
      description:
        'create: becomes a link; repeat: the same line appeared earlier; duplicate: its destination already has a link (skipDuplicates); invalid: see message.',
    }),
    message: nullable(t.String(), { description: 'Why the line is not created; null for create.' }),
    destination: nullable(t.String(), {
      description: 'The destination, utm_ keys removed; null when invalid.',
    }),
    title: nullable(t.String()),
    params: nullable(StringMapModel, {
      description: "The link's params: the request's params, then the line's utm_ values over them.",
    }),
    duplicateOfLine: nullable(Type.Integer(), {
      description: 'The earlier line this one repeats or duplicates.',
    }),
    duplicateOfLink: nullable(t.String(), { description: 'The existing link with this destination.' }),
  },
  { title: 'BulkLine' },
);
export type BulkLine = typeof BulkLineModel.static;

export const BulkPreviewModel = t.Object({
  lines: t.Array(BulkLineModel, { description: 'Every non-blank line, in order.' }),
  counts: t.Object({
    create: Type.Integer(),
    repeat: Type.Integer(),
    duplicate: Type.Integer(),
    invalid: Type.Integer(),
  }),
});

export const BulkCreateModel = t.Object({
  created: t.Array(t.Object({ line: Type.Integer(), link: LinkModel })),
  skipped: t.Array(BulkLineModel, { description: 'Every line not created (repeat, duplicate or invalid), in order.' }),
  counts: t.Object({
    created: Type.Integer(),
    repeat: Type.Integer(),
    duplicate: Type.Integer(),
    invalid: Type.Integer(),
  }),
});

const Ids = t.Array(t.String(), {
  minItems: 1,
  maxItems: MAX_BULK_IDS,
  description: `1 to ${MAX_BULK_IDS} link ids; repeats count once.`,
  error: fieldError('ids', `ids must be an array of 1 to ${MAX_BULK_IDS} link ids`),
});

export const BulkParamsBody = t.Object({
  ids: Ids,
  params: ParamsModel,
  mode: t.Optional(
    t.UnionEnum(['merge', 'replace'], {
      description: "merge (default): these params over each link's own; replace: exactly these params.",
      error: fieldError('mode', 'mode must be merge or replace'),
    }),
  ),
});
export type BulkParamsInput = typeof BulkParamsBody.static;

export const BulkProjectBody = t.Object({
  ids: Ids,
  projectId: t.Optional(
    projectIdField({ description: 'The project to move the links into; null or omitted unfiles them.' }),
  ),
});
export type BulkProjectInput = typeof BulkProjectBody.static;

const NotFound = t.Array(t.String(), { description: 'Ids with no link, in request order; nothing was done for them.' });

export const BulkParamsResult = t.Object({
  updated: Type.Integer({ description: 'Links whose params were set.' }),
  notFound: NotFound,
});

export const BulkProjectResult = t.Object({
  moved: Type.Integer({ description: 'Links whose project changed.' }),
  unchanged: Type.Integer({ description: 'Links already in that project (or already unfiled).' }),
  notFound: NotFound,
});

const Unchanged = Type.Integer({ description: 'Links that already were so.' });

export const BulkTagsBody = t.Object({
  ids: Ids,
  add: t.Optional(tagsField('Tags to add to every link (a tag a link already has is kept once).', 'add')),
  remove: t.Optional(tagsField('Tags to remove from every link (a tag a link does not have is ignored).', 'remove')),
});
export type BulkTagsInput = typeof BulkTagsBody.static;

export const BulkStatusBody = t.Object({ ids: Ids, status: StatusModel });
export type BulkStatusInput = typeof BulkStatusBody.static;

export const BulkChangedResult = t.Object({
  updated: Type.Integer({ description: 'Links changed.' }),
  unchanged: Unchanged,
  notFound: NotFound,
});

export const BulkIdsBody = t.Object({ ids: Ids });

export const BulkDeleteModel = t.Object({
  deleted: t.Array(t.String(), { description: 'Ids of the links deleted, in request order.' }),
  refused: t.Array(
    t.Object({
      id: t.String(),
      slug: t.String(),
      clickCount: Type.Integer({ description: 'Its human clicks: why it was kept.' }),
    }),
    {
      description:
        'Links kept because they have recorded human clicks (the rule of DELETE /links/{id}: archive them, or delete each in the dashboard), in request order.',
    },
  ),
  notFound: NotFound,
});
export type BulkDeleteResult = typeof BulkDeleteModel.static;
