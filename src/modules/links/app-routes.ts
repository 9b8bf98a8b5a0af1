/** /api/app/links: what only a signed-in person may do to a link. */
import { Elysia, t } from 'elysia';
import { appAccess } from '../../http/app-guard';
import { fieldError } from '../../http/errors';
import { appDetail, IdParams, noContentResponses } from '../../http/models';
import { deleteLinkWithClicks } from './delete-with-clicks';
import type { LinksDeps } from './deps';

const DeleteWithClicksBody = t.Object({
  slug: t.String({
    maxLength: 64,
    description: "The link's current slug, typed by the person to confirm.",
    error: fieldError('slug', 'Type the slug of the link exactly to confirm the delete'),
  }),
});

export function appLinksRoutes(deps: LinksDeps) {
  return new Elysia({ name: 'slink.app.links', prefix: '/links' }).delete(
    '/:id',
    async ({ params, body, set, request }) => {
      await deleteLinkWithClicks(deps, appAccess(request), params.id, body.slug);
      set.status = 204;
    },
    {
      parse: 'json',
      params: IdParams,
      body: DeleteWithClicksBody,
      detail: {
        ...appDetail(
          'Delete a link with its clicks',
          'Deletes the link, its clicks and its statistics (workspace numbers too). `slug` must equal the link’s current slug, else 400 field slug.',
        ),
        responses: noContentResponses('Deleted', 400, 403, 404),
      },
    },
  );
}
