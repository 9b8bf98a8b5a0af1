/** /links routes: thin wrappers over the link verbs. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { DeletedModel, errors, IdParams } from '../../http/models';
import type { LinksDeps } from './deps';
import {
  CreateLinkBody,
  LinkCountModel,
  LinkFilterQuery,
  LinkListModel,
  LinkModel,
  ListLinksQuery,
  TagCountsModel,
  UpdateLinkBody,
} from './model';
import { countLinks, createLink, deleteLink, getLinkOrThrow, listLinks, listTagCounts, updateLink } from './service';

const tags = ['Links'];

/** `/count` and `/tags` are paths of their own beside `/:id`: link ids start with lnk_, never one of them. */
export function linksRoutes(deps: LinksDeps) {
  return new Elysia({ name: 'slink.links', prefix: '/links' })
    .use(principalPlugin)
    .get('', ({ query, access }) => listLinks(deps, access, query), {
      query: ListLinksQuery,
      response: { 200: LinkListModel, ...errors(400, 401, 429) },
      detail: {
        tags,
        summary: 'List links',
        description:
          'Active and paused links unless `status` is given; newest first by default. `availability` keeps only the links whose short link is live, paused, expired or at its click limit now. A caller limited to projects or domains lists the links it sees only.',
      },
    })
    .get('/count', ({ query, access }) => countLinks(deps, access, query), {
      query: LinkFilterQuery,
      response: { 200: LinkCountModel, ...errors(400, 401, 429) },
      detail: {
        tags,
        summary: 'Count links',
        description:
          'How many links `GET /links` lists with the same filters (q, tag, project, status, availability), over all its pages.',
      },
    })
    .post(
      '',
      ({ body, access, set }) => {
        set.status = 201;
        return createLink(deps, access, body);
      },
      {
        parse: 'json',
        body: CreateLinkBody,
        response: { 201: LinkModel, ...errors(400, 401, 403, 409, 413, 415, 429) },
        detail: {
          tags,
          summary: 'Create a link',
          description:
            'utm_ query keys of the destination are moved into params. A custom slug requires a superuser key (403 superuser_required). A caller limited to projects must give one of them as projectId, one limited to domains one of its domains (else 400 naming the field); without `domain` such a key gets the default domain when it may, else its only one.',
        },
      },
    )
    .get('/tags', ({ access }) => listTagCounts(deps, access), {
      response: { 200: TagCountsModel, ...errors(401, 429) },
      detail: { tags, summary: 'Tags in use, with link counts', description: 'Most used first.' },
    })
    .get('/:id', ({ params, access }) => getLinkOrThrow(deps, access, params.id), {
      params: IdParams,
      response: { 200: LinkModel, ...errors(401, 404, 429) },
      detail: { tags, summary: 'Get a link' },
    })
    .patch('/:id', ({ params, body, access }) => updateLink(deps, access, params.id, body), {
      parse: 'json',
      params: IdParams,
      body: UpdateLinkBody,
      response: { 200: LinkModel, ...errors(400, 401, 403, 404, 409, 413, 415, 429) },
      detail: {
        tags,
        summary: 'Update a link',
        description:
          'Only the fields sent change. Renaming the slug requires a superuser key. status=archived hides the link from the default list; it keeps redirecting. A link outside the caller’s projects or domains is 404; moving one outside them is 400 (field projectId or domain).',
      },
    })
    .delete('/:id', ({ params, access }) => deleteLink(deps, access, params.id), {
      params: IdParams,
      response: { 200: DeletedModel, ...errors(401, 403, 404, 409, 429) },
      detail: {
        tags,
        summary: 'Delete a link',
        description:
          'Only a link without recorded human clicks; otherwise 409 delete_requires_dashboard (archive it instead).',
      },
    });
}

/** The dashboard's link routes, mounted by app.ts beside these. */
export { appLinksRoutes } from './app-routes';
