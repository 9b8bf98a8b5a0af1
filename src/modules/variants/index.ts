/** /links/{id}/variants routes. */
import { Elysia, t } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { DeletedModel, errors, IdParams } from '../../http/models';
import type { VariantsDeps } from './deps';
import { CreateVariantBody, UpdateVariantBody, VariantModel, VariantParams } from './model';
import { createVariant, deleteVariant, listVariants, updateVariant } from './service';

const tags = ['Variants'];

export function variantsRoutes(deps: VariantsDeps) {
  return new Elysia({ name: 'slink.variants', prefix: '/links/:id/variants' })
    .use(principalPlugin)
    .get('', ({ params, access }) => listVariants(deps, access, params.id), {
      params: IdParams,
      response: { 200: t.Array(VariantModel), ...errors(401, 404, 429) },
      detail: { tags, summary: 'List the variants of a link' },
    })
    .post(
      '',
      ({ params, body, set, access }) => {
        set.status = 201;
        return createVariant(deps, access, params.id, body);
      },
      {
        parse: 'json',
        params: IdParams,
        body: CreateVariantBody,
        response: { 201: VariantModel, ...errors(400, 401, 403, 404, 409, 429) },
        detail: {
          tags,
          summary: 'Create a variant',
          description: "Served at {short_host}/<slug>/<code>; its params are layered over the link's.",
        },
      },
    )
    .patch(
      '/:variantId',
      ({ params, body, access }) => updateVariant(deps, access, params.id, params.variantId, body),
      {
        parse: 'json',
        params: VariantParams,
        body: UpdateVariantBody,
        response: { 200: VariantModel, ...errors(400, 401, 403, 404, 409, 429) },
        detail: { tags, summary: 'Update a variant' },
      },
    )
    .delete('/:variantId', ({ params, access }) => deleteVariant(deps, access, params.id, params.variantId), {
      params: VariantParams,
      response: { 200: DeletedModel, ...errors(401, 403, 404, 429) },
      detail: {
        tags,
        summary: 'Delete a variant',
        description: 'Past clicks are kept and afterwards report as an unrecognised code.',
      },
    });
}
