/** /links/bulk routes: thin wrappers over the bulk verbs. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import { bulkDelete, bulkParams, bulkProject, bulkStatus, bulkTags } from './actions';
import type { BulkDeps } from './deps';
import {
  BulkChangedResult,
  BulkCreateModel,
  BulkDeleteModel,
  BulkIdsBody,
  BulkParamsBody,
  BulkParamsResult,
  BulkPreviewModel,
  BulkProjectBody,
  BulkProjectResult,
  BulkStatusBody,
  BulkTagsBody,
  BulkTextBody,
  MAX_BULK_IDS,
} from './model';
import { MAX_BULK_LINES } from './parse';
import { createBulk, previewBulk } from './service';

const tags = ['Bulk'];
const TEXT_NOTE = `Request params apply to every line; a line's own utm_ values win over them. More than ${MAX_BULK_LINES} URLs is 400 (field text); an invalid line is reported with its number and reason and never stops the others.`;

export function bulkRoutes(deps: BulkDeps) {
  return new Elysia({ name: 'slink.bulk', prefix: '/links/bulk' })
    .use(principalPlugin)
    .post('/preview', ({ body, access }) => previewBulk(deps, access, body), {
      parse: 'json',
      body: BulkTextBody,
      response: { 200: BulkPreviewModel, ...errors(400, 401, 403, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Preview a bulk create',
        description: `Creates nothing: shows, line by line, what create would do with the same body. ${TEXT_NOTE}`,
      },
    })
    .post(
      '/create',
      ({ body, set, access }) => {
        set.status = 201;
        return createBulk(deps, access, body);
      },
      {
        parse: 'json',
        body: BulkTextBody,
        response: { 201: BulkCreateModel, ...errors(400, 401, 403, 413, 415, 429) },
        detail: {
          tags,
          summary: 'Create links from text',
          description: `One transaction: every valid line becomes a link with a generated slug, or (on a failure) none does. ${TEXT_NOTE}`,
        },
      },
    )
    .post('/params', ({ body, access }) => bulkParams(deps, access, body), {
      parse: 'json',
      body: BulkParamsBody,
      response: { 200: BulkParamsResult, ...errors(400, 401, 403, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Set params on many links',
        description: `Up to ${MAX_BULK_IDS} ids, in one transaction. Unknown ids are listed in notFound. A merge that would give a link more than 50 params is 400 and changes nothing.`,
      },
    })
    .post('/project', ({ body, access }) => bulkProject(deps, access, body), {
      parse: 'json',
      body: BulkProjectBody,
      response: { 200: BulkProjectResult, ...errors(400, 401, 403, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Move many links to a project',
        description: `Up to ${MAX_BULK_IDS} ids; projectId null (or omitted) unfiles them. An unknown projectId is 400. Unknown ids are listed in notFound.`,
      },
    })
    .post('/tags', ({ body, access }) => bulkTags(deps, access, body), {
      parse: 'json',
      body: BulkTagsBody,
      response: { 200: BulkChangedResult, ...errors(400, 401, 403, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Add and remove tags on many links',
        description: `Up to ${MAX_BULK_IDS} ids, in one transaction: each link keeps its other tags. At least one tag in add or remove (else 400 field add); a tag in both is 400 field remove; a link that would carry more than 50 tags is 400 field add and nothing changes. Unknown ids are listed in notFound.`,
      },
    })
    .post('/status', ({ body, access }) => bulkStatus(deps, access, body), {
      parse: 'json',
      body: BulkStatusBody,
      response: { 200: BulkChangedResult, ...errors(400, 401, 403, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Set the status of many links',
        description: `Up to ${MAX_BULK_IDS} ids, in one transaction: pause (paused), resume or restore (active), archive (archived). Unknown ids are listed in notFound.`,
      },
    })
    .post('/delete', ({ body, access }) => bulkDelete(deps, access, body), {
      parse: 'json',
      body: BulkIdsBody,
      response: { 200: BulkDeleteModel, ...errors(400, 401, 403, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Delete many links',
        description: `Up to ${MAX_BULK_IDS} ids. By the rule of DELETE /links/{id}, a link with recorded human clicks (buffered ones included) is kept and listed in refused with its clickCount; every other link is deleted, all in one transaction. Unknown ids are listed in notFound.`,
      },
    });
}
