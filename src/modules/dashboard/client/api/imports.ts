/**
 * Imports as the dashboard runs them (/api/app/imports: admins, with the session): start one
 * (JSON for a source read over the network, a multipart upload for a file), read a run while it
 * goes, list past runs, cancel one, and its report's address.
 */
import { api } from './client';

import type { ImportRun } from './types';

export type { ImportRun };
export type ImportSourceName = ImportRun['source'];
export type ImportHistory = ImportRun['options']['history'];
export type ImportConflict = ImportRun['options']['onConflict'];
export type ImportStatus = ImportRun['status'];

/** What an import is asked for; `token` is sent once and never read back. */
export interface ImportRequest {
  source: ImportSourceName;
  url?: string;
  token?: string;
  domain?: string;
  projectId?: string;
  history: ImportHistory;
  onConflict: ImportConflict;
  dryRun: boolean;
}

const APP = '/api/app/imports';
const enc = encodeURIComponent;

/** Starts an import: a file goes as a multipart upload with the other fields beside it. */
export function startImport(request: ImportRequest, file: File | null): Promise<{ id: string }> {
  if (!file) return api.post<{ id: string }>(APP, request);
  const form = new FormData();
  for (const [name, value] of Object.entries(request))
    if (value !== undefined && value !== false && name !== 'token' && name !== 'url') form.set(name, String(value));
  form.set('file', file);
  return api.post<{ id: string }>(APP, form);
}

export const getImport = (id: string) => api.get<ImportRun>(`${APP}/${enc(id)}`);

/** Past runs, newest first. */
export const listImports = () => api.get<{ items: ImportRun[] }>(APP);

export const cancelImport = (id: string) => api.del<unknown>(`${APP}/${enc(id)}`);

/** The report: one row per source link, its outcome, its new short URL and the reason. */
export const reportUrl = (id: string) => `${APP}/${enc(id)}/report.csv`;
