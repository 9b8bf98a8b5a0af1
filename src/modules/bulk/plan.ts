/**
 * What each line of a bulk text becomes (create, repeat, duplicate, invalid): the same answer
 * for preview and create. Lines are read in chunks with a turn of the event loop between them,
 * so redirects and other requests are answered while a long text is worked through; nothing
 * here writes.
 */

import { AppError, invalid } from '../../lib/errors';
import { nextTurn } from '../../lib/event-loop';
import { checkParams } from '../../lib/params';
import { type Access, authorizePlace, type LinkFilter, linkFilter } from '../access/public';
import {
  checkProjectId,
  domainForNew,
  normalizeLinkDestination,
  normalizeTags,
  normalizeTitle,
  type SlinkHosts,
  slinkHostsOf,
} from '../links/public';
import type { BulkDeps } from './deps';
import type { BulkLine, BulkStatus, BulkTextInput } from './model';
import { splitBulkText } from './parse';

/**
 * Lines read per turn of the event loop. A line costs some 5-10 us to read and ~40 us to write
 * (prepared statements), so a chunk keeps other requests waiting about a millisecond at most.
 */
export const BULK_CHUNK = 25;

export interface Plan {
  lines: BulkLine[];
  tags: string[];
  projectId: string | null;
  /** The domain every created link is on. */
  domainId: number;
  skipDuplicates: boolean;
  /** The links a duplicate is looked for among: a limited caller's (access/ linkFilter), null for all. */
  visible: LinkFilter | null;
}

function line(base: Pick<BulkLine, 'line' | 'input'>, status: BulkStatus, rest: Partial<BulkLine> = {}): BulkLine {
  return {
    ...base,
    status,
    message: null,
    destination: null,
    title: null,
    params: null,
    duplicateOfLine: null,
    duplicateOfLink: null,
    ...rest,
  };
}

/** Reads one line on its own: repeats of an earlier line, then validity. */
function readLine(
  t: ReturnType<typeof splitBulkText>[number],
  requestParams: Record<string, string>,
  firstSeen: Map<string, BulkLine>,
  slinkHosts: SlinkHosts,
): BulkLine {
  const base = { line: t.line, input: t.input };
  const earlier = firstSeen.get(t.input);
  if (earlier !== undefined) {
    // Same text, same reading: show what the line says, but it is never created twice.
    const { destination, title, params } = earlier;
    return line(base, 'repeat', {
      message: `Repeats line ${earlier.line}`,
      duplicateOfLine: earlier.line,
      destination,
      title,
      params,
    });
  }
  let read: BulkLine;
  try {
    if (/\s/.test(t.url)) throw invalid('text', 'A URL has no spaces; put a tab between the URL and its title');
    const { destination, utm } = normalizeLinkDestination(t.url, slinkHosts, 'text');
    const title = normalizeTitle(t.title);
    // The line's own utm_ values win over the request's params.
    const params = checkParams({ ...requestParams, ...utm });
    read = line(base, 'create', { destination, title, params });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    read = line(base, 'invalid', { message: err.message });
  }
  firstSeen.set(t.input, { ...read });
  return read;
}

/**
 * Marks as duplicates the `create` lines whose destination has a link in `existing`
 * (destination -> link id), or is the destination of an earlier line.
 */
export function markDuplicates(lines: BulkLine[], existing: Map<string, string>): void {
  const claimed = new Map<string, number>();
  for (const l of lines) {
    if (l.status !== 'create') continue;
    const dest = l.destination!;
    const linkId = existing.get(dest);
    const earlier = claimed.get(dest);
    if (linkId !== undefined) markExisting(l, linkId);
    else if (earlier !== undefined)
      Object.assign(l, {
        status: 'duplicate',
        message: `Same destination as line ${earlier}`,
        duplicateOfLine: earlier,
      });
    else claimed.set(dest, l.line);
  }
}

/** A line whose destination has a link already. */
export function markExisting(l: BulkLine, linkId: string): void {
  Object.assign(l, {
    status: 'duplicate',
    message: `A link to this destination exists: ${linkId}`,
    duplicateOfLink: linkId,
  });
}

export async function planBulk(deps: BulkDeps, access: Access, input: BulkTextInput): Promise<Plan> {
  const requestParams = checkParams(input.params ?? {});
  const tags = normalizeTags(input.tags);
  const domainId = domainForNew(deps, access, input.domain).id;
  // Within the caller's limits, as one link's create (400 projectId or domain), before anything is read.
  authorizePlace(access, { projectId: input.projectId ?? null, domainId });
  const projectId = await checkProjectId(deps, input.projectId);
  const visible = linkFilter(access);
  const skipDuplicates = input.skipDuplicates ?? true;
  const text = splitBulkText(input.text);
  const slinkHosts = slinkHostsOf(deps);
  const firstSeen = new Map<string, BulkLine>();
  const lines: BulkLine[] = [];
  for (let i = 0; i < text.length; i++) {
    if (i > 0 && i % BULK_CHUNK === 0) await nextTurn();
    lines.push(readLine(text[i]!, requestParams, firstSeen, slinkHosts));
  }
  if (skipDuplicates) {
    const candidates = lines.filter((l) => l.status === 'create').map((l) => l.destination!);
    // A limited caller's duplicates are among the links it sees: a link it cannot see is never named.
    markDuplicates(lines, await deps.stores.links.idsByDestination([...new Set(candidates)], visible));
  }
  return { lines, tags, projectId, domainId, skipDuplicates, visible };
}

export function countStatuses(lines: BulkLine[]): Record<BulkStatus, number> {
  const counts: Record<BulkStatus, number> = { create: 0, repeat: 0, duplicate: 0, invalid: 0 };
  for (const l of lines) counts[l.status]++;
  return counts;
}
