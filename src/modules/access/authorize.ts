/**
 * The one authorisation function: (who is asking) × (action, target) → allowed, or the
 * contract's error. Every API route (through the guard's route table, http/route-actions.ts),
 * the dashboard's endpoints, the CLI and MCP's tools ask it; services ask it again for the
 * parts of an action that depend on the target (a link's project and domain, a custom slug).
 * It reads only the Access made once per request: no I/O, no allocation on the allowed path.
 */
import { AppError, invalid, notFound } from '../../lib/errors';
import { type Action, MATRIX, type Rule } from './matrix';
import type { Access, Credential, EffectiveScope, Placed, Via } from './model';

/** Whether the caller sees only part of the links (a project or domain limit). */
export function isLimited(access: Access): boolean {
  return access.projects !== null || access.domains !== null;
}

function scopeRefusal(access: Access): AppError {
  if (access.scope === 'create') {
    return new AppError('insufficient_scope', 'This key may only create links (POST /links) and read GET /me');
  }
  if (access.role === 'viewer') return new AppError('insufficient_scope', 'This account is a viewer: it may only read');
  return new AppError('insufficient_scope', 'This key is read-only: a write key is required');
}

/** Why `access` may not do `action`, or null when it may. */
export function refusal(access: Access, action: Action): AppError | null {
  const rule: Rule = MATRIX[action];
  if (!rule.scopes.includes(access.scope)) return scopeRefusal(access);
  if (rule.adminOnly && access.role !== 'admin') {
    return new AppError('superuser_required', `Only an admin may: ${rule.what.toLowerCase()}`, rule.field);
  }
  if (!rule.limited && isLimited(access)) {
    return new AppError(
      'insufficient_scope',
      `A caller limited to projects or domains may not: ${rule.what.toLowerCase()}`,
      rule.field,
    );
  }
  return null;
}

/** Throws refusal(access, action) when there is one. */
export function authorize(access: Access, action: Action): void {
  const refused = refusal(access, action);
  if (refused) throw refused;
}

/** Whether a link (or anything placed like one) is within the caller's limits. */
export function sees(access: Access, target: Placed): boolean {
  if (access.domains !== null && !access.domains.includes(target.domainId)) return false;
  if (access.projects === null) return true;
  return target.projectId !== null && access.projects.includes(target.projectId);
}

/** "Not yours" is "not found": a link outside the caller's limits is never told apart from none. */
export function requireSees(access: Access, target: Placed, what = 'link'): void {
  if (!sees(access, target)) throw notFound(what);
}

/**
 * Where a link is about to be made or moved to: within the caller's limits, else 400 naming the
 * field that would have to change (a limited caller must name one of its projects).
 */
export function placeRefusal(access: Access, target: Placed): AppError | null {
  if (access.projects !== null && (target.projectId === null || !access.projects.includes(target.projectId))) {
    return invalid('projectId', 'Choose one of your projects: this account or key sees only the links in its projects');
  }
  if (access.domains !== null && !access.domains.includes(target.domainId)) {
    return invalid('domain', 'This key may not place links on that domain');
  }
  return null;
}

export function authorizePlace(access: Access, target: Placed): void {
  const refused = placeRefusal(access, target);
  if (refused) throw refused;
}

/** What the stores filter lists, counts and statistics by; null for everything. */
export interface LinkFilter {
  projects: readonly string[] | null;
  domains: readonly number[] | null;
}

export function linkFilter(access: Access): LinkFilter | null {
  return isLimited(access) ? { projects: access.projects, domains: access.domains } : null;
}

/** Both limits, or the one that is set, or null when neither is. */
function intersect<T>(a: readonly T[] | null, b: readonly T[] | null): readonly T[] | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.filter((x) => b.includes(x));
}

/**
 * The Access of a verified credential. A key never has more than its account: a viewer's
 * session and any write key it kept from before a demotion act as `read` (a create key stays
 * `create`, meant for a form), and the key's project limit is intersected with its account's.
 */
export function accessOf(credential: Credential, via: Via): Access {
  const { account, key } = credential;
  const scope: EffectiveScope = account.role === 'viewer' && key.scope === 'write' ? 'read' : key.scope;
  return {
    accountId: account.id,
    keyId: via === 'dashboard' ? null : key.id,
    role: account.role,
    scope,
    projects: intersect(account.projects, key.projects),
    domains: key.domains,
    via,
    superuser: account.role === 'admin',
  };
}

/** The operator at the box (`slink` subcommands): every power, for nobody in particular. */
export const OPERATOR: Access = Object.freeze({
  accountId: null,
  keyId: null,
  role: 'admin',
  scope: 'write',
  projects: null,
  domains: null,
  via: 'cli',
  superuser: true,
});
