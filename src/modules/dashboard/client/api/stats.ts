/** Statistics, raw clicks and the CSV export of /api/v1, always for one window. */
import type { StatsWindow } from '../lib/stats-window';
import { api, withQuery } from './client';
import type { Click, Page, Stats, WorkspaceStats } from './types';

const V1 = '/api/v1';
const enc = encodeURIComponent;

export const CLICKS_PAGE_SIZE = 50;

export const getLinkStats = (id: string, w: StatsWindow) =>
  api.get<Stats>(withQuery(`${V1}/links/${enc(id)}/stats`, { ...w }));
/** `domain`: only the clicks of that domain's links. */
export const getWorkspaceStats = (w: StatsWindow, domain?: string) =>
  api.get<WorkspaceStats>(withQuery(`${V1}/workspace/stats`, { ...w, domain }));
export const listClicks = (id: string, w: StatsWindow, cursor: string | null) =>
  api.get<Page<Click>>(withQuery(`${V1}/links/${enc(id)}/clicks`, { ...w, limit: CLICKS_PAGE_SIZE, cursor }));

/** The export's address, for a download link: same origin, so the session cookie goes along. */
export const exportCsvUrl = (id: string, w: StatsWindow) => withQuery(`${V1}/links/${enc(id)}/export.csv`, { ...w });
