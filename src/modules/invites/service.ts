/**
 * Invite verbs. An admin invites an email with a role (and projects); the answer holds a one-time
 * address whose secret is never stored (only its SHA-256) and never shown again. Whoever opens
 * the address within 7 days chooses a password and gets that account, signed in (accept.ts).
 * Every change writes its audit entry in its own transaction (never the secret).
 */

import { AppError, conflict, notFound } from '../../lib/errors';
import { digestsEqual, sha256Hex } from '../../lib/hash';
import { newId, randomToken } from '../../lib/ids';
import { DAY_MS } from '../../lib/time';
import { type Access, authorize } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import { checkEmail, findAccountByEmail, knownProjects, refuseAdminLimit } from '../auth/public';
import type { SignInAttempt } from '../sessions/public';
import type { InvitesBase, InvitesDeps } from './deps';
import type { CreateInviteInput, InviteItem, InviteStatus } from './model';
import type { InviteRow } from './table';

/** How long an invite address works (the contract: 7 days). */
export const INVITE_DAYS = 7;

/** Where the dashboard serves an invite address (its page: dashboard client pages/invite.tsx). */
export const INVITE_PATH = '/app/invite/';

export function inviteStatusOf(row: InviteRow, now: number): InviteStatus['status'] {
  if (row.usedAt !== null) return 'used';
  if (row.revokedAt !== null) return 'revoked';
  return row.expiresAt <= now ? 'expired' : 'pending';
}

function toItem(row: InviteRow): InviteItem {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    projects: row.projects ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}

/** Creates an invite; the answer's url holds the secret this once. */
export async function createInvite(deps: InvitesBase, access: Access, input: CreateInviteInput) {
  authorize(access, 'invite.write');
  const email = checkEmail(input.email);
  // The same rules as an account's: known project ids, at least one, never for an admin.
  const projects = await knownProjects(deps, input.projects);
  refuseAdminLimit(input.role, projects);
  if (await findAccountByEmail(deps, email)) throw conflict('email', `An account for ${email} already exists`);
  const now = deps.clock.now();
  const secret = randomToken();
  const row: InviteRow = {
    id: newId('inv'),
    email,
    role: input.role,
    projects,
    tokenHash: sha256Hex(secret),
    createdBy: access.accountId,
    createdAt: now,
    expiresAt: now + INVITE_DAYS * DAY_MS,
    usedAt: null,
    revokedAt: null,
  };
  const fields = fieldsOf({ email, role: input.role, projects: projects ?? undefined });
  const audit = auditEntry(access, 'invite.create', { type: 'invite', id: row.id }, fields, now);
  if (!(await deps.stores.invites.insertUnlessPending(row, now, audit))) {
    throw conflict('email', `A pending invite for ${email} exists: revoke it first to invite again`);
  }
  return { id: row.id, url: `${deps.config.appHost}${INVITE_PATH}${secret}`, expiresAt: row.expiresAt };
}

/** The pending invites (not used, not revoked, not expired), newest first; never a secret. */
export async function listInvites(deps: InvitesBase, access: Access): Promise<InviteItem[]> {
  authorize(access, 'invite.read');
  return (await deps.stores.invites.listPending(deps.clock.now())).map(toItem);
}

/** Revokes a pending invite: its address stops working. One that is not pending is not_found. */
export async function revokeInvite(deps: InvitesBase, access: Access, id: string): Promise<void> {
  authorize(access, 'invite.write');
  const now = deps.clock.now();
  const audit = auditEntry(access, 'invite.revoke', { type: 'invite', id }, ['revokedAt'], now);
  if (!(await deps.stores.invites.revoke(id, now, audit))) throw notFound('pending invite');
}

/** The invite of an address's secret, or not_found; the stored hash is compared again in constant time. */
export async function findInviteByToken(deps: InvitesBase, token: string): Promise<InviteRow> {
  const hash = sha256Hex(token);
  const row = await deps.stores.invites.findByTokenHash(hash);
  if (!row || !digestsEqual(row.tokenHash, hash)) {
    throw new AppError('not_found', 'This invite address is not known: check that it was copied whole');
  }
  return row;
}

/**
 * The invite of a secret, the lookup counted as a failed sign-in of the client address until it
 * finds one (sessions/throttle.ts): guessing secrets through either door is as slow as guessing
 * passwords, and the guard refuses a throttled address before the body is read.
 */
export async function findInviteThrottled(
  deps: InvitesDeps,
  token: string,
  address: string | null,
): Promise<{ invite: InviteRow; attempt: SignInAttempt }> {
  const attempt = await deps.signInThrottle.start(`invite:${sha256Hex(token).slice(0, 16)}`, address);
  return { invite: await findInviteByToken(deps, token), attempt };
}

/** What the invite page shows: whose invite, which role, and whether it can still be accepted. Changes nothing. */
export async function inviteStatus(deps: InvitesDeps, token: string, address: string | null): Promise<InviteStatus> {
  const { invite, attempt } = await findInviteThrottled(deps, token, address);
  await attempt.succeeded();
  const status = inviteStatusOf(invite, deps.clock.now());
  return { status, email: invite.email, role: invite.role, expiresAt: invite.expiresAt };
}
