/** GET /links/{id}/qr.svg: a thin route over linkQr, with conditional GET. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { etagMatches } from '../../http/etag';
import { errorResponses, IdParams } from '../../http/models';
import type { QrDeps } from './deps';
import { QrQuery } from './model';
import { DEFAULT_QR_SIZE, MAX_QR_SIZE, MIN_QR_SIZE } from './render';
import { linkQr } from './service';

export function qrRoutes(deps: QrDeps) {
  return new Elysia({ name: 'slink.qr' }).use(principalPlugin).get(
    '/links/:id/qr.svg',
    async ({ params, query, request, access }) => {
      const { svg, etag } = await linkQr(deps, access, params.id, query);
      // Cacheable, but revalidated every time: a renamed slug must never leave a stale code.
      const headers = { etag, 'cache-control': 'private, no-cache' };
      if (etagMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
      return new Response(svg(), { headers: { ...headers, 'content-type': 'image/svg+xml' } });
    },
    {
      params: IdParams,
      query: QrQuery,
      detail: {
        tags: ['Links'],
        summary: 'QR code of a link as SVG',
        description: `Encodes the link's short URL, or with \`variant\` that variant's URL. ${MIN_QR_SIZE} to ${MAX_QR_SIZE} px (default ${DEFAULT_QR_SIZE}), a quiet zone of 4 modules. Error correction is the strongest (H, Q, M, L) that keeps at least 2.5 px per module at ${MIN_QR_SIZE} px for the URL's length; URLs past about 60 characters need 256 px or more to scan. Sent with an ETag and \`Cache-Control: private, no-cache\`: send If-None-Match to get 304.`,
        responses: {
          200: { description: 'image/svg+xml', content: { 'image/svg+xml': { schema: { type: 'string' } } } },
          304: { description: 'Not modified (If-None-Match matched the ETag)' },
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
  );
}
