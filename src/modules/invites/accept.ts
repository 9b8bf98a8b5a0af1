/**
 * Accepting an invite: the invited person chooses a password and gets the invite's account,
 * signed in. Marking the invite used, inserting the account and the audit entries are one
 * transaction that only a pending invite lets through, so two tabs accepting at once make one
 * account (the other is told the invite was used). Looking an invite up changes nothing (link
 * previewers open addresses). A secret that names no invite counts as a failed sign-in of the
 * client's address (sessions/throttle.ts): guessing is slow, and the guard refuses a throttled
 * address before the body is read.
 */

import { isUniqueViolation } from '../../db/storage';
import { conflict } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Access } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import { type AccountRow, checkPassword, findAccountByEmail, hashPassword, isAdmin } from '../auth/public';
import { type NewSession, startSession } from '../sessions/public';
import type { InvitesDeps } from './deps';
import { findInviteThrottled, inviteStatusOf } from './service';
import type { InviteRow } from './table';

interface AcceptInput {
  token: string;
  password: string;
  userAgent: string | null;
  /** The client address, for the failure limit only (never stored). */
  address: string | null;
  /** The browser's session, if it was signed in (as someone else): it ends, as at sign-in. */
  previousSessionId: string | null;
}

const WHY_NOT: Record<'used' | 'revoked' | 'expired', string> = {
  used: 'This invite was used already: sign in with its email, or ask an admin for a new invite',
  revoked: 'This invite was revoked: ask an admin for a new invite',
  expired: 'This invite expired: ask an admin for a new invite',
};

function notPending(row: InviteRow, now: number) {
  const status = inviteStatusOf(row, now);
  return status === 'pending' ? null : conflict('token', WHY_NOT[status]);
}

/** The new account, acting for itself through the dashboard: the audit entries' actor. */
function accessOfNew(account: AccountRow): Access {
  return {
    accountId: account.id,
    keyId: null,
    role: account.role,
    scope: 'write',
    projects: account.projects ?? null,
    domains: null,
    via: 'dashboard',
    superuser: isAdmin(account),
  };
}

async function acceptFound(deps: InvitesDeps, invite: InviteRow, input: AcceptInput): Promise<NewSession> {
  const refused = notPending(invite, deps.clock.now());
  if (refused) throw refused;
  checkPassword(input.password);
  const taken = () => conflict('email', `An account for ${invite.email} already exists: sign in instead`);
  if (await findAccountByEmail(deps, invite.email)) throw taken();
  const passwordHash = await hashPassword(input.password);
  // Read after the (slow) hash: the invite may have been used, revoked or expired meanwhile.
  const now = deps.clock.now();
  const account: AccountRow = {
    id: newId('acc'),
    email: invite.email,
    passwordHash,
    role: invite.role,
    createdAt: now,
    lastSignInAt: null,
    disabledAt: null,
    projects: invite.projects ?? null,
  };
  const actor = accessOfNew(account);
  // The fields an admin's account.create names (auth/accounts.ts): the password is never among them.
  const fields = fieldsOf({ email: true, role: true, projects: account.projects ?? undefined });
  const audit = [
    auditEntry(actor, 'account.create', { type: 'account', id: account.id }, fields, now),
    auditEntry(actor, 'invite.accept', { type: 'invite', id: invite.id }, ['usedAt'], now),
  ];
  let accepted: boolean;
  try {
    accepted = await deps.stores.invites.accept(invite.id, account, now, audit);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
  if (!accepted) {
    const again = await deps.stores.invites.find(invite.id);
    throw (again && notPending(again, now)) ?? conflict('token', WHY_NOT.used);
  }
  const created = await startSession(deps, account, input.userAgent);
  if (input.previousSessionId) await deps.stores.sessions.delete(input.previousSessionId);
  return created;
}

/** Creates the invite's account with this password and signs it in. */
export async function acceptInvite(deps: InvitesDeps, input: AcceptInput): Promise<NewSession> {
  const { invite, attempt } = await findInviteThrottled(deps, input.token, input.address);
  try {
    const created = await acceptFound(deps, invite, input);
    await attempt.succeeded();
    return created;
  } catch (err) {
    await attempt.cancelled();
    throw err;
  }
}
