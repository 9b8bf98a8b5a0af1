/** The audit log as the dashboard reads it (/api/app/audit: the API's page, with emails and slugs). */
import { api, withQuery } from './client';
import type { AppAuditItem, Page } from './types';

export const AUDIT_PAGE_SIZE = 50;

export interface AuditFilters {
  actor?: string;
  action?: string;
  targetType?: string;
}

export async function listAudit(filters: AuditFilters, cursor: string | null): Promise<Page<AppAuditItem>> {
  const page = await api.get<{ items: AppAuditItem[]; nextCursor: string | null }>(
    withQuery('/api/app/audit', { ...filters, limit: AUDIT_PAGE_SIZE, cursor }),
  );
  return { items: page.items, cursor: page.nextCursor };
}
