/** /imports (admins) and the dashboard's /api/app/imports: thin wrappers over the import verbs. */
import { Elysia } from 'elysia';
import { appAccess } from '../../http/app-guard';
import { principalPlugin } from '../../http/auth';
import { MAX_UPLOAD_BYTES } from '../../http/json-body';
import { appDetail, errorResponses, errors, IdParams } from '../../http/models';
import { type StreamedUpload, streamUpload } from '../../http/upload-stream';
import { AppError } from '../../lib/errors';
import type { Access } from '../access/public';
import type { ImportDeps } from './deps';
import { CreatedImportModel, CreateImportBody, type CreateImportInput, ImportListModel, ImportModel } from './model';
import { reportBody } from './report';
import { cancelImport, getImport, type ImportRequest, listImports, startImport } from './service';

const tags = ['Imports'];

/** A JSON body or a multipart form (csv and slink files), as the service takes it. */
function requestOf(body: CreateImportInput): ImportRequest {
  const file = body.file instanceof Blob ? body.file : null;
  return {
    source: body.source,
    url: body.url ?? null,
    token: body.token ?? null,
    file,
    domain: body.domain ?? null,
    projectId: body.projectId ?? null,
    history: body.history ?? 'clicks',
    onConflict: body.onConflict ?? 'skip',
    dryRun: body.dryRun === true,
  };
}

/** Each request's upload on disk, removed once its run ends (or once answered, when no run took it). */
const uploads = new WeakMap<Request, { upload: StreamedUpload; handed: boolean }>();

/**
 * A multipart form read as it arrives: its file part to a temporary file (http/upload-stream.ts),
 * never held whole in memory. Anything else goes on to the JSON parser.
 */
async function parseUpload(ctx: { request: Request }, contentType: string) {
  if (!contentType.startsWith('multipart/form-data')) return;
  const upload = await streamUpload(
    ctx.request,
    MAX_UPLOAD_BYTES,
    () =>
      new AppError(
        'payload_too_large',
        `A file uploaded is at most ${MAX_UPLOAD_BYTES} bytes (64 MiB): import a larger one with slink import --file`,
      ),
  );
  uploads.set(ctx.request, { upload, handed: false });
  return upload.file === null ? upload.fields : { ...upload.fields, file: upload.file.blob };
}

const START_MEANING =
  'Admins only. Checks the source (one request to it) and starts the import in the background: 202 with its id, then GET it for progress. JSON for the sources read through their API; a multipart form with `file` (and the same fields as text) for csv and slink files. One run at a time per source and address (409 conflict, field source); a run of a source whose last run did not finish resumes where it stopped (a file: only the same file). On PostgreSQL with several nodes, a run whose node dies is taken over by another. The token is never stored in clear.';

function routes(deps: ImportDeps, accessOf: (ctx: { request: Request; access?: Access }) => Access, app: boolean) {
  const detail = (summary: string, description?: string) =>
    app ? appDetail(summary, description) : { tags, summary, description };
  return new Elysia({ name: app ? 'slink.app.imports' : 'slink.imports', prefix: '/imports' })
    .post(
      '',
      async (ctx) => {
        const { id, done } = await startImport(deps, accessOf(ctx), requestOf(ctx.body as CreateImportInput));
        const held = uploads.get(ctx.request);
        if (held) {
          // The run reads the file until it ends (on PostgreSQL a copy is kept in the database).
          held.handed = true;
          void done.finally(() => held.upload.remove()).catch(() => {});
        }
        ctx.set.status = 202;
        return { id };
      },
      {
        // One schema, sent as JSON or (with a file) as a multipart form.
        parse: [parseUpload, 'json'],
        // Refused (a bad field, a source that does not answer): the upload goes at once.
        afterResponse({ request }) {
          const held = uploads.get(request);
          if (held && !held.handed) held.upload.remove();
        },
        // A form's fields are text: its dryRun is read as the boolean the schema wants.
        transform({ body }) {
          const form = body as Record<string, unknown> | undefined;
          if (typeof form?.dryRun === 'string' && (form.dryRun === 'true' || form.dryRun === 'false'))
            form.dryRun = form.dryRun === 'true';
        },
        body: CreateImportBody,
        response: { 202: CreatedImportModel, ...errors(400, 401, 403, 409, 413, 415, 429) },
        detail: detail('Start an import', START_MEANING),
      },
    )
    .get('', () => listImports(deps), {
      response: { 200: ImportListModel, ...errors(401, 403, 429) },
      detail: detail('List imports', 'The newest 100 runs, newest first.'),
    })
    .get('/:id', ({ params }) => getImport(deps, params.id), {
      params: IdParams,
      response: { 200: ImportModel, ...errors(401, 403, 404, 429) },
      detail: detail(
        'Get an import',
        'Its status and counts. A run whose process stopped (killed, crashed) and that no other node took over is failed with "interrupted: run it again to resume".',
      ),
    })
    .delete('/:id', ({ params }) => cancelImport(deps, params.id), {
      params: IdParams,
      response: { 200: ImportModel, ...errors(401, 403, 404, 429) },
      detail: detail(
        'Cancel an import',
        'A running import stops at its next page boundary (status cancelled); what it made stays, and a new run of the source resumes after it. A run that ended is answered as it is.',
      ),
    })
    .get(
      '/:id/report.csv',
      async ({ params }) => {
        await getImport(deps, params.id);
        return new Response(reportBody(deps, params.id), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="import-${params.id.replace(/[^\w-]/g, '')}.csv"`,
            'cache-control': 'no-store',
          },
        });
      },
      {
        params: IdParams,
        detail: {
          ...detail(
            "An import's report",
            'CSV (RFC 4180, formula-guarded like the clicks export): a header, then one row per source link read: sourceId, outcome (created, existing, skipped, failed), shortUrl, reason.',
          ),
          responses: {
            // The dashboard's operations describe a body that is not JSON by its words only.
            200: app
              ? { description: 'text/csv' }
              : { description: 'text/csv', content: { 'text/csv': { schema: { type: 'string' } } } },
            ...errorResponses(401, 403, 404, 429),
          },
        },
      },
    );
}

export function importsRoutes(deps: ImportDeps) {
  return new Elysia({ name: 'slink.imports.api' })
    .use(principalPlugin)
    .use(routes(deps, (ctx) => ctx.access as Access, false));
}

export function appImportsRoutes(deps: ImportDeps) {
  return routes(deps, (ctx) => appAccess(ctx.request), true);
}
