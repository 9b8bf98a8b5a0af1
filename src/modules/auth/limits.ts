/**
 * Project and domain limits as people write them (project ids, domain hosts) and as they are
 * stored (project ids, domain ids): checked against what exists, each wrong one a 400 naming the
 * field. An empty list would see nothing at all: a limit names at least one, or is null for none.
 */
import { invalid } from '../../lib/errors';
import type { AuthDeps } from './deps';

const MAX_LIMIT = 100;

function listOf(given: readonly string[], field: string, what: string): string[] {
  if (given.length === 0) throw invalid(field, `${field} names at least one ${what}, or is null for all`);
  if (given.length > MAX_LIMIT) throw invalid(field, `${field} names at most ${MAX_LIMIT} ${what}s`);
  return [...new Set(given)];
}

/** Project ids that all exist, each once; null stays null (every project). */
export async function knownProjects(
  deps: AuthDeps,
  given: readonly string[] | null | undefined,
  field = 'projects',
): Promise<string[] | null> {
  if (given === null || given === undefined) return null;
  const ids = listOf(given, field, 'project');
  const names = await deps.stores.projects.names(ids);
  const unknown = ids.filter((id) => !names.has(id));
  if (unknown.length) throw invalid(field, `No such project: ${unknown.join(', ')}`);
  return ids;
}

const hostOf = (host: string) => host.trim().toLowerCase().replace(/\.$/, '');

/** Domain hosts to the ids stored; null stays null (every domain). */
export async function domainIdsOf(
  deps: AuthDeps,
  hosts: readonly string[] | null | undefined,
): Promise<number[] | null> {
  if (hosts === null || hosts === undefined) return null;
  const wanted = listOf(hosts.map(hostOf), 'domains', 'domain');
  const byHost = new Map((await deps.stores.domains.list()).filter((d) => d.host !== '').map((d) => [d.host, d.id]));
  const unknown = wanted.filter((host) => !byHost.has(host));
  if (unknown.length) throw invalid('domains', `No such domain: ${unknown.join(', ')}`);
  return wanted.map((host) => byHost.get(host)!);
}

/** Stored domain ids to their hosts, for listings (a domain deleted since is left out). */
export async function hostsOf(deps: AuthDeps, ids: readonly number[] | null): Promise<string[] | null> {
  if (ids === null) return null;
  const byId = new Map((await deps.stores.domains.list()).map((d) => [d.id, d.host]));
  return ids.flatMap((id) => {
    const host = byId.get(id);
    return host === undefined ? [] : [host];
  });
}
