/**
 * The workspace's export (docs/behaviour.md, "Export"): NDJSON, one object a line. A header
 * line, every domain, every project, then the links in id order, each page of links followed
 * by their raw clicks when asked for (a link line then carries its imported daily counts too,
 * and what its counters hold beyond its click lines and those days).
 * Read in keyset pages (links by id here; a page of links' clicks by (timestamp, id) in the
 * export Worker, as the CSV export reads them) and written only
 * as fast as the client takes it, so the memory it holds is one page whatever the workspace's
 * size, and the clicks' garbage is the Worker's.
 */
import { describeError } from '../../lib/errors';
import { retainedFrom } from '../clicks/public';
import { type DomainRow, domainSettingsOf } from '../domains/public';
import { type Link, toLinks } from '../links/public';
import type { ExportDeps } from './deps';

/** The format's version: a reader refuses a version it does not know. */
export const EXPORT_VERSION = 1;
/** Links per page: their tags, variants and project names are read once per page. */
const LINK_PAGE = 200;

const line = (value: object): string => `${JSON.stringify(value)}\n`;

/** A domain's settings, as GET /domains answers them but for its link count (the links say where they live). */
function domainLine(deps: ExportDeps, row: DomainRow): string {
  return line({ type: 'domain', ...domainSettingsOf(deps.domains, row) });
}

/**
 * The click lines of a page of links, read and written in the export Worker (analytics'
 * export-click-lines.ts): those the clicks list shows (the retained window, bots included),
 * each link's newest first, written before the export began (`maxId`), so the file is one
 * moment's. Chunks of bytes, passed on as they come: no click is ever a string on this thread.
 * A client that leaves ends the Worker's reading too.
 */
async function* clickChunks(
  deps: ExportDeps,
  links: readonly { link: Link; scope: number }[],
  from: number,
  maxId: number,
) {
  const chunks = deps.exports.start({
    kind: 'click lines',
    links: workerLinks(links, true),
    from,
    maxId,
  });
  let done = false;
  try {
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) yield chunk;
    done = true;
  } finally {
    if (!done) chunks.cancel();
  }
}

/** A page's links as the export Worker reads their clicks (their variants' ids only where lines name them). */
function workerLinks(links: readonly { link: Link; scope: number }[], withVariants: boolean) {
  return links.map(({ link, scope }) => ({
    linkId: link.id,
    scope,
    slug: link.slug,
    domain: link.domain,
    variantIds: withVariants ? link.variants.map((v) => v.id) : [],
  }));
}

/**
 * How many of each page link's raw clicks the click lines will hold (the same read, counted in
 * the export Worker): by link id, `[humans, their first visits of a day, bots]`.
 */
async function lineCounts(
  deps: ExportDeps,
  links: readonly { link: Link; scope: number }[],
  from: number,
  maxId: number,
): Promise<Map<string, readonly [number, number, number]>> {
  if (links.length === 0) return new Map();
  const chunks = deps.exports.start({
    kind: 'click counts',
    links: workerLinks(links, false),
    from,
    maxId,
  });
  const decoder = new TextDecoder();
  const counts = new Map<string, readonly [number, number, number]>();
  let done = false;
  try {
    // Every chunk is whole lines, a link's each.
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next())
      for (const text of decoder.decode(chunk).split('\n')) {
        if (text === '') continue;
        const [id, humans, firsts, bots] = JSON.parse(text) as [string, number, number, number];
        counts.set(id, [humans, firsts, bots]);
      }
    done = true;
  } finally {
    if (!done) chunks.cancel();
  }
  return counts;
}

/**
 * What a link's counters hold beyond its click lines and imported daily counts (a total an
 * import set, raw clicks retention removed), as the link line carries it (`countedOnly`); null
 * when nothing. A click counted while the export runs but not yet in its raw clicks (or the
 * reverse) can make a difference of a few either way: below zero counts as none.
 */
function countedOnlyOf(
  link: Link,
  lines: readonly [number, number, number],
  days: readonly { clicks: number }[] | undefined,
): { clicks: number; uniques: number; bots: number } | null {
  const dayClicks = (days ?? []).reduce((sum, d) => sum + d.clicks, 0);
  const rest = {
    clicks: Math.max(0, link.clickCount - lines[0] - dayClicks),
    uniques: Math.max(0, link.uniqueCount - lines[1]),
    bots: Math.max(0, link.botCount - lines[2]),
  };
  return rest.clicks + rest.uniques + rest.bots === 0 ? null : rest;
}

const NO_LINES = [0, 0, 0] as const;

/** An imported daily count as the link line carries it: its UTC day (YYYY-MM-DD) and clicks. */
const importedDayOf = (d: { start: number; clicks: number }) => ({
  day: new Date(d.start).toISOString().slice(0, 10),
  clicks: d.clicks,
});

/** The export's text, a page at a time. */
export async function* exportLines(deps: ExportDeps, withClicks: boolean): AsyncGenerator<string | Uint8Array> {
  const now = deps.clock.now();
  // The snapshot of clicks: those written later are left out (clicks have increasing ids).
  const maxId = withClicks ? await deps.stores.analytics.lastClickId() : 0;
  const kept = retainedFrom(now, deps.config.retentionDays) ?? 0;
  const retaining = kept > 0;
  yield line({ type: 'export', version: EXPORT_VERSION, exportedAt: now, source: 'slink', clicks: withClicks });
  const [domains, projects] = await Promise.all([deps.stores.domains.list(), deps.stores.projects.list()]);
  yield domains.map((row) => domainLine(deps, row)).join('');
  if (projects.length > 0) yield projects.map((p) => line({ type: 'project', ...p })).join('');
  let after = '';
  for (;;) {
    const rows = await deps.stores.links.rowPage(after, LINK_PAGE);
    const last = rows[rows.length - 1];
    if (last === undefined) return;
    // The Link JSON carries no password hash, only passwordProtected: the export adds the hash
    // (argon2id, never the password), so another Slink importing it asks for the same password.
    const links = await toLinks(deps, rows);
    const hashes = new Map(rows.map((r) => [r.id, r.passwordHash]));
    // With the clicks, a link's imported daily counts too: no raw click holds them, so without
    // them another Slink reading the export would count fewer clicks than this one.
    const days = withClicks ? await deps.stores.analytics.importedDays(links.map((l) => l.id)) : null;
    // Only links ever clicked have raw clicks (a click is stored under its link's scope): one
    // read for the page, rather than a query for each link that has none.
    const clicked = withClicks ? await deps.stores.analytics.linkScopes(links.map((l) => l.id)) : new Map();
    const withAny = links.flatMap((link) => {
      const scope = clicked.get(link.id);
      return scope === undefined ? [] : [{ link, scope }];
    });
    // The clicks counted that no line of the file holds, so the Slink reading it counts them
    // too. Only an import (a total) or retention leaves any: the other links' clicks are not
    // read twice.
    const counted = withAny.filter(({ link }) => link.imported !== null || retaining);
    const lines = withClicks ? await lineCounts(deps, counted, kept, maxId) : new Map();
    yield links
      .map((link) => {
        const hash = hashes.get(link.id) ?? null;
        const kept = days?.get(link.id);
        const rest =
          withClicks && (link.imported !== null || retaining)
            ? countedOnlyOf(link, lines.get(link.id) ?? NO_LINES, kept)
            : null;
        return line({
          type: 'link',
          ...link,
          ...(hash === null ? {} : { passwordHash: hash }),
          ...(kept === undefined || kept.length === 0 ? {} : { importedDays: kept.map(importedDayOf) }),
          ...(rest === null ? {} : { countedOnly: rest }),
        });
      })
      .join('');
    if (withAny.length > 0) yield* clickChunks(deps, withAny, kept, maxId);
    if (rows.length < LINK_PAGE) return;
    after = last.id;
  }
}

/**
 * The response body: one page per pull and no queue of its own (high-water mark 0), so a slow
 * client is never sent more than the socket takes and the next page is read only when asked for.
 * Every chunk is whole lines. A read that fails errors the stream: the server then aborts the
 * response before the chunked body's end (or before its status, when nothing was sent yet), so
 * the client's read fails rather than ending as if the file were complete; the reason is logged.
 */
export function exportBody(deps: ExportDeps, withClicks: boolean): ReadableStream<Uint8Array> {
  const pages = exportLines(deps, withClicks);
  const encoder = new TextEncoder();
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<string | Uint8Array>;
        try {
          next = await pages.next();
        } catch (err) {
          deps.log.error(`the workspace export failed after ${sent} bytes: ${describeError(err)}`);
          throw err;
        }
        if (next.done) return controller.close();
        const chunk = typeof next.value === 'string' ? encoder.encode(next.value) : next.value;
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
      async cancel() {
        await pages.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
