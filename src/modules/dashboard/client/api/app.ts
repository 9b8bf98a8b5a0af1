/** The dashboard's own endpoints (/api/app): session, setup, keys, sessions, password, accounts. */
import { api } from './client';
import type { AccountItem, KeyItem, KeyScope, OwnedKeyItem, SessionItem, SignedIn, Workspace } from './types';

const APP = '/api/app';
const enc = encodeURIComponent;

export const getSession = () => api.get<SignedIn>(`${APP}/session`);
export const signIn = (email: string, password: string) => api.post<SignedIn>(`${APP}/session`, { email, password });
export const signOut = () => api.del(`${APP}/session`);

export const getSetup = () => api.get<{ needed: boolean }>(`${APP}/setup`);
export const completeSetup = (token: string, email: string, password: string) =>
  api.post<SignedIn>(`${APP}/setup`, { token, email, password });

export const listSessions = () => api.get<{ items: SessionItem[] }>(`${APP}/sessions`);
export const endSession = (id: string) => api.del(`${APP}/sessions/${enc(id)}`);
export const endAllSessions = () => api.del(`${APP}/sessions`);

export const changePassword = (currentPassword: string, newPassword: string) =>
  api.post<void>(`${APP}/password`, { currentPassword, newPassword });

export const listKeys = () => api.get<{ items: KeyItem[] }>(`${APP}/keys`);
/** Admins: every account's keys, each with its owner's email. */
export const listEveryKey = () => api.get<{ items: OwnedKeyItem[] }>(`${APP}/keys/all`);
export const createKey = (input: {
  name?: string;
  scope: KeyScope;
  expiresAt: number | null;
  projects: string[] | null;
  domains: string[] | null;
}) => api.post<{ key: string; item: KeyItem }>(`${APP}/keys`, input);
export const revokeKey = (id: string) => api.del(`${APP}/keys/${enc(id)}`);

export const listAccounts = () => api.get<{ items: AccountItem[] }>(`${APP}/accounts`);
type Role = AccountItem['role'];
export const createAccount = (input: { email: string; password: string; role: Role; projects: string[] | null }) =>
  api.post<{ item: AccountItem }>(`${APP}/accounts`, input);
export const updateAccount = (id: string, change: { role?: Role; projects?: string[] | null; disabled?: boolean }) =>
  api.patch<{ item: AccountItem }>(`${APP}/accounts/${enc(id)}`, change);
export const setAccountDisabled = (id: string, disabled: boolean) => updateAccount(id, { disabled });

export const getWorkspace = () => api.get<Workspace>('/api/v1/workspace');
