/** GET /export (admins): the workspace as NDJSON, a thin route over the export's reading. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errorResponses } from '../../http/models';
import type { ExportDeps } from './deps';
import { ExportQuery } from './model';
import { exportBody } from './service';

export function exportRoutes(deps: ExportDeps) {
  return new Elysia({ name: 'slink.export' }).use(principalPlugin).get(
    '/export',
    ({ query }) =>
      new Response(exportBody(deps, query.clicks === '1'), {
        headers: {
          'content-type': 'application/x-ndjson',
          'content-disposition': 'attachment; filename="slink-export.ndjson"',
          'cache-control': 'no-store',
        },
      }),
    {
      query: ExportQuery,
      detail: {
        tags: ['Export'],
        summary: 'Export the workspace',
        description:
          'Admins only. NDJSON, one object a line: a header `{"type":"export","version":1,"exportedAt","source":"slink","clicks"}`, then every domain (its settings), every project, every link (the Link object, in id order, with `passwordHash`, the argon2id hash of its password, when it has one; and with clicks=1 `importedDays`, `[{"day":"YYYY-MM-DD","clicks"}]` oldest first, the daily counts an import brought that no raw click holds, when it has some; and `countedOnly`, `{"clicks","uniques","bots"}`, what its counters hold beyond its click lines and those days, such as an imported total or raw clicks retention removed, when it has some) and, with clicks=1, after each page of links their raw clicks (the click record, newest first). Streamed in constant memory. Never exported: passwords (a protected link carries only its hash), account password hashes, keys, accounts, sessions, webhooks and their secrets.',
        responses: {
          200: {
            description: 'application/x-ndjson',
            content: { 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
  );
}
