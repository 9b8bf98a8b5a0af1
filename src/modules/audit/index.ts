/** /audit (admins) and the dashboard's /api/app/audit: thin wrappers over the log's reading. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { appDetail, errors } from '../../http/models';
import type { AuditDeps } from './deps';
import { AppAuditPageModel, AuditPageModel, AuditQuery } from './model';
import { listAudit, listAuditNamed } from './service';

export function auditRoutes(deps: AuditDeps) {
  return new Elysia({ name: 'slink.audit' }).use(principalPlugin).get(
    '/audit',
    async ({ query }) => {
      const { items, nextCursor } = await listAudit(deps, query);
      return { items, nextCursor };
    },
    {
      query: AuditQuery,
      response: { 200: AuditPageModel, ...errors(400, 401, 403, 429) },
      detail: {
        tags: ['Audit'],
        summary: 'Read the audit log',
        description:
          'Admins only. Every change to links, variants, projects, tags, domains, webhooks, keys, accounts and invites, newest first; kept 365 days. Filters combine; `actor` is an account id or email.',
      },
    },
  );
}

export function appAuditRoutes(deps: AuditDeps) {
  return new Elysia({ name: 'slink.app.audit' }).get('/audit', ({ query }) => listAuditNamed(deps, query), {
    query: AuditQuery,
    response: { 200: AppAuditPageModel, ...errors(400, 403) },
    detail: appDetail(
      'Read the audit log, named',
      "GET /api/v1/audit's page, each entry with its actor's email and a link target's current slug.",
    ),
  });
}
