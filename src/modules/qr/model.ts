/** QR code query: the single source for validation and OpenAPI. */
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { queryInteger } from '../../http/models';
import { DEFAULT_QR_SIZE, MAX_QR_SIZE, MIN_QR_SIZE } from './render';

export const QrQuery = t.Object({
  size: t.Optional(
    queryInteger('size', MIN_QR_SIZE, MAX_QR_SIZE, {
      description: `Width and height in px, ${MIN_QR_SIZE} to ${MAX_QR_SIZE} (default ${DEFAULT_QR_SIZE}).`,
    }),
  ),
  variant: t.Optional(
    t.String({
      description: "A variant's code: encode that variant's URL instead of the link's.",
      error: fieldError('variant', 'variant must be a variant code'),
    }),
  ),
});
export type QrInput = typeof QrQuery.static;
