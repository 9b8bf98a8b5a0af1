/** The short domains calls of /api/v1: the list, adding, changing and deleting one (admins). */
import { api } from './client';
import type { Domain, DomainPatch } from './types';

const V1 = '/api/v1/domains';
const enc = encodeURIComponent;

/** What a domain's edit form may change; null clears a value. */
export type DomainFields = DomainPatch;

export const listDomains = () => api.get<{ domains: Domain[] }>(V1);
export const addDomain = (origin: string) => api.post<Domain>(V1, { origin });
export const updateDomain = (host: string, fields: DomainFields) => api.patch<Domain>(`${V1}/${enc(host)}`, fields);
export const deleteDomain = (host: string) => api.del(`${V1}/${enc(host)}`);
