/**
 * Reading the raw clicks back from the tail and the sealed blocks: a link's clicks newest
 * first (the clicks list and the CSV export), every click in id order (readClicksAfter: the
 * rollup rebuild and the fold's restart), and deleting a link's clicks. Only this module and
 * the writer name the click tables.
 *
 * A link's clicks newest first: the tail rows of the link (one scan of the tail, which sealing
 * keeps under ~SEAL_ROWS rows), then the link's block in each segment that can still hold a
 * row of the page, newest segment first, merged on (timestamp desc, id desc). A segment whose
 * newest possible key sorts below the page's last key so far is not read.
 */
import type { Database } from 'bun:sqlite';
import { prepareLinkCounters } from '../../links/public';
import {
  type ClickDimTuple,
  type ClickSource,
  type CountedClick,
  dimValues,
  type ImportedDay,
  linkValueId,
  RollupValues,
} from '../../rollups/public';
import { prepareVariantCounters } from '../../variants/public';
import { type ClickColumns, decodeBlock } from '../block-codec';
import {
  belowFullPage,
  type ClickFilter,
  type ClickKey,
  type ClickRef,
  mergeInto,
  newer,
  type SortedBlock,
  sortNewestFirst,
  takeBelow,
} from '../block-page';
import type { ClickTarget } from '../stored-click';
import { FLAG_BOT, FLAG_FIRST_OF_DAY, FLAG_OPTED_OUT } from '../stored-click';
import { TargetNames } from './click-targets';
import { TAIL_SELECT, tailColumns } from './seal';
import { visitorHex } from './tail-append';

export type { ClickFilter, ClickKey, ClickRef } from '../block-page';

/**
 * Names of dictionary and target ids, one set per connection, cached for good: no id ever names
 * another row later (rollup_values rows are never deleted; click_targets ids are AUTOINCREMENT).
 */
export interface ClickNames {
  values: RollupValues;
  targets: TargetNames;
}

const namesByConnection = new WeakMap<Database, ClickNames>();

export function clickNames(sqlite: Database): ClickNames {
  let names = namesByConnection.get(sqlite);
  if (!names) {
    const values = new RollupValues(sqlite);
    values.refresh();
    names = { values, targets: new TargetNames(sqlite) };
    namesByConnection.set(sqlite, names);
  }
  return names;
}

/** The text of a dictionary id: null for '' (unknown). */
export function valueText(names: ClickNames, id: number): string | null {
  const v = names.values.nameOf(id)?.value;
  if (v === undefined) throw new Error(`click value ${id} is missing`);
  return v === '' ? null : v;
}

/** The dimensions of click `i` as text, in CLICK_DIMS order. */
export function dimensionTexts(names: ClickNames, c: ClickColumns, i: number): ClickDimTuple {
  return c.dims.map((column) => valueText(names, column[i]!)) as unknown as ClickDimTuple;
}

export function targetOf(names: ClickNames, id: number): ClickTarget {
  return names.targets.get(id);
}

interface BlockMeta {
  seg: number;
  first_id: number;
  last_id: number;
  min_time: number;
  max_time: number;
}

/**
 * Pages of one link's clicks, newest first. A reader used for many pages (the export) keeps
 * the blocks it decoded (a few, bounded), and stops scanning the tail once every tail row
 * below its position was returned (rows only leave the tail, and new rows are past the snapshot).
 */
export class LinkClickReader {
  private readonly blocks = new Map<number, SortedBlock>();
  private tailDone = false;
  /**
   * A reader that keeps blocks (the export) reads the link's tail rows once, at its first page,
   * rather than scanning the whole tail (no index by link) again for each page: profiled on a
   * 300,000-click link, those scans were a third of the export's time. The tail is bounded
   * (sealing keeps it under ~SEAL_ROWS rows), so is this.
   */
  private tailSnapshot: SortedBlock | null = null;
  /**
   * With a tail snapshot, the last id sealed when it was read: blocks are read up to it only,
   * since a row sealed later is in the snapshot (sealing moves the tail's oldest ids to a new
   * segment), and must not come twice.
   */
  private sealedTo = Number.MAX_SAFE_INTEGER;

  constructor(
    private readonly sqlite: Database,
    private readonly link: number,
    private readonly filter: ClickFilter,
    private readonly keepBlocks = 0,
  ) {}

  /** Up to `limit` clicks below `before`, newest first; one read transaction, so a seal never shows a click twice. */
  page(before: ClickKey, limit: number): ClickRef[] {
    return this.sqlite.transaction(() => this.read(before, limit))();
  }

  private read(before: ClickKey, limit: number): ClickRef[] {
    const { sqlite, link, filter } = this;
    const maxId = Number.isFinite(filter.maxId) ? filter.maxId : Number.MAX_SAFE_INTEGER;
    let page: ClickRef[] = [];
    let tail: ClickColumns | null = null;
    if (this.keepBlocks > 0) {
      this.tailSnapshot ??= this.readTail(maxId);
      page = takeBelow(this.tailSnapshot, before, filter, maxId, limit);
    } else if (!this.tailDone) {
      const rows = sqlite
        .query<number[], [number, number, number, number, number, number, number]>(
          `SELECT ${TAIL_SELECT} FROM click_tail
           WHERE link = ? AND (time, id) < (?, ?) AND time >= ? AND id <= ? AND (flags & 1) <= ?
           ORDER BY time DESC, id DESC LIMIT ?`,
        )
        .values(link, before.timestamp, before.id, filter.from, maxId, filter.bots ? 1 : 0, limit) as number[][];
      tail = tailColumns(rows);
      for (let i = 0; i < tail.count; i++) page.push({ c: tail, i });
    }
    const blocksMaxId = Math.min(maxId, this.sealedTo);
    const metas = sqlite
      .query<BlockMeta, [number, number, number, number]>(
        // Segments first (CROSS JOIN keeps that order), each block then found by its key: left
        // to itself the planner scanned every link's blocks (~4 ms a read at 2,000 blocks).
        `SELECT b.seg, b.first_id, b.last_id, b.min_time, b.max_time FROM click_segments s
         CROSS JOIN click_blocks b ON b.seg = s.seg AND b.link = ?
         WHERE s.max_time >= ? AND s.min_time <= ? AND s.first_id <= ?
         ORDER BY s.seg DESC`,
      )
      .all(link, filter.from, before.timestamp, blocksMaxId);
    for (const m of metas) {
      if (m.max_time < filter.from || m.min_time > before.timestamp || m.first_id > blocksMaxId) continue;
      // Its newest possible key is below the page's last: nothing of it can be on the page.
      if (belowFullPage(page, limit, m.max_time, m.last_id)) continue;
      const block = this.block(m.seg);
      if (!block) continue;
      page = mergeInto(page, takeBelow(block, before, filter, blocksMaxId, limit), limit);
    }
    if (tail && tail.count < limit) {
      // Every tail row below `before` was read; done when the page returns all of them.
      const lastRef = page[page.length - 1];
      const oldestTail = tail.count - 1;
      if (oldestTail < 0 || (lastRef && !newer(tail, oldestTail, lastRef.c, lastRef.i))) this.tailDone = true;
    }
    return page;
  }

  /** Every tail row of the link up to `maxId` in the filter, and the last id sealed then (one read transaction). */
  private readTail(maxId: number): SortedBlock {
    const { sqlite, link, filter } = this;
    this.sealedTo =
      sqlite.query<{ last_id: number }, []>('SELECT last_id FROM click_segments ORDER BY seg DESC LIMIT 1').get()
        ?.last_id ?? 0;
    const rows = sqlite
      .query<number[], [number, number, number, number]>(
        `SELECT ${TAIL_SELECT} FROM click_tail WHERE link = ? AND time >= ? AND id <= ? AND (flags & 1) <= ?`,
      )
      .values(link, filter.from, maxId, filter.bots ? 1 : 0) as number[][];
    return sortNewestFirst(tailColumns(rows));
  }

  /** The link's block of a segment, decoded and sorted (kept when this reader keeps blocks). */
  private block(seg: number): SortedBlock | null {
    const kept = this.blocks.get(seg);
    if (kept) return kept;
    const row = this.sqlite
      .query<{ data: Uint8Array }, [number, number]>('SELECT data FROM click_blocks WHERE seg = ? AND link = ?')
      .get(seg, this.link);
    if (!row) return null;
    const block = sortNewestFirst(decodeBlock(row.data));
    if (this.keepBlocks > 0) {
      if (this.blocks.size >= this.keepBlocks) this.blocks.delete(this.blocks.keys().next().value!);
      this.blocks.set(seg, block);
    }
    return block;
  }
}

/** The newest click id: clicks written later have higher ids (the writer never reuses one). */
export function lastClickId(sqlite: Database): number {
  return sqlite
    .query<{ id: number }, []>(
      `SELECT max(coalesce((SELECT value FROM click_state WHERE name = 'last_id'), 0),
         coalesce((SELECT max(id) FROM click_tail), 0)) AS id`,
    )
    .get()!.id;
}

/** How many raw clicks are stored: the tail's and every block's (a benchmark's check that none was lost). */
export function countClicks(sqlite: Database): number {
  return sqlite
    .query<{ n: number }, []>(
      'SELECT (SELECT count(*) FROM click_tail) + (SELECT coalesce(sum(count), 0) FROM click_blocks) AS n',
    )
    .get()!.n;
}

/** Whether any raw click is stored. */
export function hasClicks(sqlite: Database): boolean {
  return (
    sqlite.query('SELECT 1 FROM click_tail LIMIT 1').get() !== null ||
    sqlite.query('SELECT 1 FROM click_blocks LIMIT 1').get() !== null
  );
}

/**
 * A stored raw click read back whole, in id order (the fold's restart, the rebuild, the upgrade
 * check): what the rollups count (CountedClick), its visitor (16 hex) and what else was
 * recorded, the destination and the params as stored (JSON text).
 */
export type StoredClick = CountedClick & { visitor: string; destination: string; paramsJson: string };

/** Up to `limit` clicks with id > `afterId`, in id order (sealed ones first: they have the lower ids). */
export function readClicksAfter(sqlite: Database, afterId: number, limit: number): StoredClick[] {
  const names = clickNames(sqlite);
  const out: StoredClick[] = [];
  sqlite.transaction(() => {
    const segs = sqlite
      .query<{ seg: number }, [number]>('SELECT seg FROM click_segments WHERE last_id > ? ORDER BY seg')
      .all(afterId);
    const blocks = sqlite.query<{ link: number; data: Uint8Array }, [number]>(
      'SELECT link, data FROM click_blocks WHERE seg = ?',
    );
    for (const { seg } of segs) {
      const refs: { link: number; c: ClickColumns; i: number }[] = [];
      for (const b of blocks.all(seg)) {
        const c = decodeBlock(b.data);
        for (let i = 0; i < c.count; i++) if (c.id[i]! > afterId) refs.push({ link: b.link, c, i });
      }
      refs.sort((a, b) => a.c.id[a.i]! - b.c.id[b.i]!);
      for (const r of refs) {
        if (out.length >= limit) return;
        out.push(foldClick(names, r.link, r.c, r.i));
      }
    }
    if (out.length >= limit) return;
    const rows = sqlite
      .query<number[], [number, number]>(`SELECT link, ${TAIL_SELECT} FROM click_tail WHERE id > ? ORDER BY id LIMIT ?`)
      .values(afterId, limit - out.length) as number[][];
    const c = tailColumns(rows, 1);
    for (let i = 0; i < c.count; i++) out.push(foldClick(names, rows[i]![0]!, c, i));
  })();
  return out;
}

/** The fold watermark: the last click id whose counts are in the rollups and counters (click_state). */
export function foldedThrough(sqlite: Database): number {
  return (
    sqlite.query<{ value: number }, []>("SELECT value FROM click_state WHERE name = 'folded_through'").get()?.value ?? 0
  );
}

/**
 * The raw clicks and the fold watermark for the rollups module's fold and rebuild
 * (rollups/rollups.ts ClickSource), which never read the click tables themselves: the rollups
 * do not depend on this module. The watermark stays a click_state row, next to `last_id`, so
 * only this module names click_state and no table moves (no migration); the fold moves it in
 * its own transaction by calling markFolded.
 */
export function clickSource(sqlite: Database): ClickSource {
  const mark = sqlite.prepare<unknown, [number]>(
    `INSERT INTO click_state (name, value) VALUES ('folded_through', ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
  );
  return {
    readAfter: (afterId, limit) => readClicksAfter(sqlite, afterId, limit),
    importedDaysAfter: (after, limit) =>
      sqlite
        .query<ImportedDay, [string, number, number]>(
          `SELECT link_id AS linkId, start, clicks FROM imported_days
           WHERE (link_id, start) > (?1, ?2) ORDER BY link_id, start LIMIT ?3`,
        )
        .all(after?.linkId ?? '', after?.start ?? Number.MIN_SAFE_INTEGER, limit),
    hasClicks: () => hasClicks(sqlite),
    foldedThrough: () => foldedThrough(sqlite),
    markFolded: (id) => {
      mark.run(id);
    },
    prepareCounters: () => ({ links: prepareLinkCounters(sqlite), variants: prepareVariantCounters(sqlite) }),
  };
}

/**
 * The imported daily counts kept of these links (imported_days), each link's oldest first: the
 * export carries them beside the raw clicks, which do not hold them.
 */
export function importedDaysOf(
  sqlite: Database,
  linkIds: readonly string[],
): Map<string, { start: number; clicks: number }[]> {
  const out = new Map<string, { start: number; clicks: number }[]>();
  if (linkIds.length === 0) return out;
  const rows = sqlite
    .query<ImportedDay, string[]>(
      `SELECT link_id AS linkId, start, clicks FROM imported_days
       WHERE link_id IN (${linkIds.map(() => '?').join(',')}) ORDER BY link_id, start`,
    )
    .all(...linkIds);
  for (const r of rows) {
    const list = out.get(r.linkId);
    if (list === undefined) out.set(r.linkId, [{ start: r.start, clicks: r.clicks }]);
    else list.push({ start: r.start, clicks: r.clicks });
  }
  return out;
}

/**
 * Calls `each` for every human click flagged first-of-day at or after `from` (the writer's seen
 * visitors of today and yesterday, at open): the tail, and the blocks of the segments that
 * reach `from`. Only those days' clicks are decoded.
 */
export function firstVisitsSince(
  sqlite: Database,
  from: number,
  each: (linkId: string, time: number, visitor: string) => void,
): void {
  const names = clickNames(sqlite);
  const visit = (link: number, c: ClickColumns, i: number) => {
    if (c.time[i]! < from || (c.flags[i]! & FLAG_FIRST_OF_DAY) === 0) return;
    each(names.values.nameOf(link)!.value, c.time[i]!, visitorHex(c.visitorHi[i]!, c.visitorLo[i]!));
  };
  sqlite.transaction(() => {
    const blocks = sqlite.query<{ link: number; data: Uint8Array }, [number, number]>(
      'SELECT link, data FROM click_blocks WHERE seg = ? AND max_time >= ?',
    );
    for (const { seg } of sqlite
      .query<{ seg: number }, [number]>('SELECT seg FROM click_segments WHERE max_time >= ?')
      .all(from)) {
      for (const b of blocks.all(seg, from)) {
        const c = decodeBlock(b.data);
        for (let i = 0; i < c.count; i++) visit(b.link, c, i);
      }
    }
    const rows = sqlite
      .query<number[], [number, number]>(
        `SELECT link, ${TAIL_SELECT} FROM click_tail WHERE time >= ? AND flags & ? ORDER BY id`,
      )
      .values(from, FLAG_FIRST_OF_DAY) as number[][];
    const c = tailColumns(rows, 1);
    for (let i = 0; i < c.count; i++) visit(rows[i]![0]!, c, i);
  })();
}

function foldClick(names: ClickNames, link: number, c: ClickColumns, i: number): StoredClick {
  const target = targetOf(names, c.target[i]!);
  const flags = c.flags[i]!;
  return {
    id: c.id[i]!,
    linkId: names.values.nameOf(link)!.value,
    time: c.time[i]!,
    bot: (flags & FLAG_BOT) !== 0,
    code: target.code,
    variantId: target.variantId,
    rule: target.rule,
    params: paramsOf(target.params),
    ...dimValues(dimensionTexts(names, c, i)),
    firstOfDay: (flags & FLAG_FIRST_OF_DAY) !== 0,
    optedOut: (flags & FLAG_OPTED_OUT) !== 0,
    visitor: visitorHex(c.visitorHi[i]!, c.visitorLo[i]!),
    destination: target.destination,
    paramsJson: target.params,
  };
}

// Targets share few params strings: parse each once (frozen: shared between clicks).
const parsedParams = new Map<string, Readonly<Record<string, string>>>();

function paramsOf(json: string): Readonly<Record<string, string>> {
  let p = parsedParams.get(json);
  if (p === undefined) {
    if (parsedParams.size >= 10_000) parsedParams.clear();
    p = Object.freeze(JSON.parse(json) as Record<string, string>);
    parsedParams.set(json, p);
  }
  return p;
}

/**
 * Deletes a link's raw clicks: its tail rows and its block in every segment (one keyed
 * delete per segment, no index on link needed), and its targets. Runs in the caller's transaction.
 */
export function deleteLinkClicks(sqlite: Database, linkId: string): void {
  const link = linkValueId(sqlite, linkId);
  if (link !== null) {
    sqlite.query('DELETE FROM click_tail WHERE link = ?').run(link);
    sqlite.query('DELETE FROM click_blocks WHERE seg IN (SELECT seg FROM click_segments) AND link = ?').run(link);
  }
  sqlite.query('DELETE FROM click_targets WHERE link_id = ?').run(linkId);
}
