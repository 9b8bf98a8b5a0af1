/** Invites: the admins' calls (/api/v1/invites) and the invite page's doors (/api/app/invite). */
import type { InviteItem, InviteStatus } from '../../../invites/model';
import { api } from './client';
import type { SignedIn } from './types';

export type { InviteItem, InviteStatus };

const V1 = '/api/v1/invites';
const enc = encodeURIComponent;

export const listInvites = () => api.get<{ items: InviteItem[] }>(V1);
export const createInvite = (input: { email: string; role: InviteItem['role']; projects: string[] | null }) =>
  api.post<{ id: string; url: string; expiresAt: number }>(V1, input);
export const revokeInvite = (id: string) => api.del(`${V1}/${enc(id)}`);

/** The secret goes in the body, never in an API address (which logs and proxies may keep). */
export const getInviteStatus = (token: string) => api.post<InviteStatus>('/api/app/invite/status', { token });
export const acceptInvite = (token: string, password: string) =>
  api.post<SignedIn>('/api/app/invite', { token, password });
