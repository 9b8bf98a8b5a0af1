/** Bulk create: many links from text (preview and create). No HTTP here; verbs on a selection are in actions.ts. */
import type { Deps } from '../../deps';
import { AppError, invalid } from '../../lib/errors';
import { checkParams } from '../../lib/params';
import type { Link } from '../links/model';
import { normalizeLinkDestination, slinkHostsOf } from '../links/own-host';
import { type LinkRow, linkIdsByDestination, toLinks } from '../links/repo';
import { checkProjectId, freshSlug, newLinkRow, normalizeTags, normalizeTitle } from '../links/service';
import { insertLinks, writeLinks } from '../links/writes';
import type { BulkLine, BulkStatus, BulkTextInput } from './model';
import { splitBulkText } from './parse';

interface Plan {
  lines: BulkLine[];
  tags: string[];
  projectId: string | null;
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

/** What each line of the text becomes: the same answer for preview and create. */
function planBulk(deps: Deps, input: BulkTextInput): Plan {
  const requestParams = checkParams(input.params ?? {});
  const tags = normalizeTags(input.tags);
  const projectId = checkProjectId(deps, input.projectId);
  const skipDuplicates = input.skipDuplicates ?? true;
  const text = splitBulkText(input.text);
  const slinkHosts = slinkHostsOf(deps.config);

  // First pass: repeats and validity, each line on its own.
  const firstSeen = new Map<string, BulkLine>();
  const remember = (l: BulkLine): BulkLine => {
    firstSeen.set(l.input, { ...l });
    return l;
  };
  const parsed = text.map((t): BulkLine => {
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
    try {
      if (/\s/.test(t.url)) throw invalid('text', 'A URL has no spaces; put a tab between the URL and its title');
      const { destination, utm } = normalizeLinkDestination(t.url, slinkHosts, 'text');
      const title = normalizeTitle(t.title);
      // The line's own utm_ values win over the request's params.
      const params = checkParams({ ...requestParams, ...utm });
      return remember(line(base, 'create', { destination, title, params }));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return remember(line(base, 'invalid', { message: err.message }));
    }
  });

  // Second pass: duplicates of existing links and of earlier lines, when asked to skip them.
  if (skipDuplicates) {
    const candidates = parsed.filter((l) => l.status === 'create').map((l) => l.destination!);
    const existing = linkIdsByDestination(deps.db, [...new Set(candidates)]);
    const claimed = new Map<string, number>();
    for (const l of parsed) {
      if (l.status !== 'create') continue;
      const dest = l.destination!;
      const linkId = existing.get(dest);
      const earlier = claimed.get(dest);
      if (linkId !== undefined)
        Object.assign(l, {
          status: 'duplicate',
          message: `A link to this destination exists: ${linkId}`,
          duplicateOfLink: linkId,
        });
      else if (earlier !== undefined)
        Object.assign(l, {
          status: 'duplicate',
          message: `Same destination as line ${earlier}`,
          duplicateOfLine: earlier,
        });
      else claimed.set(dest, l.line);
    }
  }
  return { lines: parsed, tags, projectId };
}

function countStatuses(lines: BulkLine[]): Record<BulkStatus, number> {
  const counts: Record<BulkStatus, number> = { create: 0, repeat: 0, duplicate: 0, invalid: 0 };
  for (const l of lines) counts[l.status]++;
  return counts;
}

export function previewBulk(deps: Deps, input: BulkTextInput) {
  const { lines } = planBulk(deps, input);
  return { lines, counts: countStatuses(lines) };
}

/** Creates every `create` line in one transaction: all of them, or (on any failure) none. */
export function createBulk(deps: Deps, input: BulkTextInput) {
  const plan = planBulk(deps, input);
  const taken = new Set<string>();
  const items: { line: number; row: LinkRow; tags: string[] }[] = [];
  for (const l of plan.lines) {
    if (l.status !== 'create') continue;
    const slug = freshSlug(deps, taken);
    taken.add(slug);
    const row = newLinkRow(deps, {
      slug,
      destination: l.destination!,
      title: l.title,
      params: l.params!,
      projectId: plan.projectId,
      expiresAt: null,
      clickLimit: null,
    });
    items.push({ line: l.line, row, tags: plan.tags });
  }
  // One transaction: every line is created, or (on any failure) none.
  writeLinks(deps, (w) => insertLinks(w, items));
  const links: Link[] = toLinks(
    deps.db,
    deps.config.shortHost,
    items.map((i) => i.row),
    deps.clock.now(),
  );
  const { create, ...skips } = countStatuses(plan.lines);
  return {
    created: items.map((item, i) => ({ line: item.line, link: links[i]! })),
    skipped: plan.lines.filter((l) => l.status !== 'create'),
    counts: { created: create, ...skips },
  };
}
