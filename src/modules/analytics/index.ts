/** Statistics, raw clicks and the CSV export: thin routes over the analytics verbs. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errorResponses, errors, IdParams } from '../../http/models';
import type { AnalyticsDeps } from './deps';
import { ClickPageModel, ClicksQuery, StatsModel, StatsQuery, WorkspaceStatsModel, WorkspaceStatsQuery } from './model';
import { linkClicks, linkExport, linkStats, workspaceStats } from './service';

const tags = ['Analytics'];
const WINDOW_NOTE =
  'Window: range (default 30d), or from/to (epoch ms or YYYY-MM-DD, UTC; a `to` date includes its day); bots=1 counts bot hits too.';

export function analyticsRoutes(deps: AnalyticsDeps) {
  return new Elysia({ name: 'slink.analytics' })
    .use(principalPlugin)
    .get('/links/:id/stats', ({ params, query, access }) => linkStats(deps, access, params.id, query), {
      params: IdParams,
      query: StatsQuery,
      response: { 200: StatsModel, ...errors(400, 401, 404, 429) },
      detail: {
        tags,
        summary: 'Statistics of a link',
        description: `Totals, series and breakdowns from hourly and daily rollups. ${WINDOW_NOTE}`,
      },
    })
    .get('/workspace/stats', ({ query, access }) => workspaceStats(deps, access, query), {
      query: WorkspaceStatsQuery,
      response: { 200: WorkspaceStatsModel, ...errors(400, 401, 429) },
      detail: {
        tags,
        summary: 'Statistics of the whole workspace',
        description: `As link statistics, over every link, plus topLinks; its variant list has one entry per variant of each link (\`<slug>/<code>\`). \`domain\` keeps only the links on that short domain. A caller limited to projects or domains gets the statistics of the links it sees. ${WINDOW_NOTE}`,
      },
    })
    .get('/links/:id/clicks', ({ params, query, access }) => linkClicks(deps, access, params.id, query), {
      params: IdParams,
      query: ClicksQuery,
      response: { 200: ClickPageModel, ...errors(400, 401, 404, 429) },
      detail: {
        tags,
        summary: 'Raw clicks of a link',
        description: `Newest first; cursor paging never repeats or skips a click. ${WINDOW_NOTE}`,
      },
    })
    .get(
      '/links/:id/export.csv',
      async ({ params, query, access }) => {
        const { filename, body, retainedFrom } = await linkExport(deps, access, params.id, query);
        const headers: Record<string, string> = {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="${filename}"`,
          'cache-control': 'no-store',
        };
        // With SLINK_RETENTION_DAYS set: the oldest instant (epoch ms) raw clicks are kept from.
        if (retainedFrom !== null) headers['x-slink-retained-from'] = String(retainedFrom);
        return new Response(body, { headers });
      },
      {
        params: IdParams,
        query: StatsQuery,
        detail: {
          tags,
          summary: 'Raw clicks of a link as CSV',
          description: `RFC 4180 (CRLF, quoted cells), a header row, the click fields in the order of the clicks list; params as a JSON string; newest first. Cells starting with = + - @ tab or CR get a leading '. Streamed; an export that cannot be completed (its link deleted meanwhile, the server stopping) is aborted before the body's end, never ended as a whole file. With SLINK_RETENTION_DAYS set, the header X-Slink-Retained-From gives the oldest instant (epoch ms) raw clicks are kept from: older clicks are not in the file. ${WINDOW_NOTE}`,
          responses: {
            200: { description: 'text/csv', content: { 'text/csv': { schema: { type: 'string' } } } },
            ...errorResponses(400, 401, 404, 429),
          },
        },
      },
    );
}
