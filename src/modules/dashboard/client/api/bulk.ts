/**
 * The bulk calls of /api/v1: links from pasted text, and for a selection of links their params,
 * project, tags and status, and deleting them. Each selection verb is one request for up to
 * MAX_BULK_IDS links (one transaction on the server), never one request per link.
 */
import { api } from './client';
import type { BulkDeleteResult, BulkLine, BulkStatus, Link, LinkStatus } from './types';

const BULK = '/api/v1/links/bulk';

/** The API's limit on ids per bulk call; a larger selection goes in several calls. */
export const MAX_BULK_IDS = 200;

export interface BulkText {
  text: string;
  tags: string[];
  projectId: string | null;
  params: Record<string, string>;
  skipDuplicates: boolean;
  /** The host of the domain every link goes on (the default domain when left out). */
  domain?: string;
}

export interface BulkPreview {
  lines: BulkLine[];
  counts: Record<BulkStatus, number>;
}

export interface BulkCreated {
  created: { line: number; link: Link }[];
  skipped: BulkLine[];
  counts: { created: number; repeat: number; duplicate: number; invalid: number };
}

export const previewBulk = (body: BulkText) => api.post<BulkPreview>(`${BULK}/preview`, body);
export const createBulk = (body: BulkText) => api.post<BulkCreated>(`${BULK}/create`, body);

/** `ids` in calls of at most MAX_BULK_IDS, one after the other; the answers in order. */
async function inBatches<T>(ids: string[], call: (batch: string[]) => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < ids.length; i += MAX_BULK_IDS) answers.push(await call(ids.slice(i, i + MAX_BULK_IDS)));
  return answers;
}

export async function setParamsOf(ids: string[], params: Record<string, string>, mode: 'merge' | 'replace') {
  const answers = await inBatches(ids, (batch) =>
    api.post<{ updated: number; notFound: string[] }>(`${BULK}/params`, { ids: batch, params, mode }),
  );
  return { updated: answers.reduce((n, a) => n + a.updated, 0), notFound: answers.flatMap((a) => a.notFound) };
}

export async function moveToProject(ids: string[], projectId: string | null) {
  const answers = await inBatches(ids, (batch) =>
    api.post<{ moved: number; unchanged: number; notFound: string[] }>(`${BULK}/project`, { ids: batch, projectId }),
  );
  return {
    moved: answers.reduce((n, a) => n + a.moved, 0),
    unchanged: answers.reduce((n, a) => n + a.unchanged, 0),
    notFound: answers.flatMap((a) => a.notFound),
  };
}

/** What tags and status answer: links changed, links that already were so, ids with no link. */
export interface BulkChanged {
  updated: number;
  unchanged: number;
  notFound: string[];
}

const sumChanged = (answers: BulkChanged[]): BulkChanged => ({
  updated: answers.reduce((n, a) => n + a.updated, 0),
  unchanged: answers.reduce((n, a) => n + a.unchanged, 0),
  notFound: answers.flatMap((a) => a.notFound),
});

/** Adds `add` to and removes `remove` from every link; each keeps its other tags. */
export async function changeTagsOf(ids: string[], add: string[], remove: string[]): Promise<BulkChanged> {
  return sumChanged(
    await inBatches(ids, (batch) => api.post<BulkChanged>(`${BULK}/tags`, { ids: batch, add, remove })),
  );
}

/** Pause (paused), resume or restore (active), archive (archived). */
export async function setStatusOf(ids: string[], status: LinkStatus): Promise<BulkChanged> {
  return sumChanged(await inBatches(ids, (batch) => api.post<BulkChanged>(`${BULK}/status`, { ids: batch, status })));
}

/** Deletes the links without human clicks; the others come back in `refused`, with their clicks. */
export async function deleteLinksOf(ids: string[]): Promise<BulkDeleteResult> {
  const answers = await inBatches(ids, (batch) => api.post<BulkDeleteResult>(`${BULK}/delete`, { ids: batch }));
  return {
    deleted: answers.flatMap((a) => a.deleted),
    refused: answers.flatMap((a) => a.refused),
    notFound: answers.flatMap((a) => a.notFound),
  };
}
