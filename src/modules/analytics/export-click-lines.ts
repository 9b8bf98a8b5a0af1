/**
 * The workspace export's click lines (docs/behaviour.md, "Export"), built in the export Worker
 * as the CSV export is (export-worker.ts): for a page of links, each link's raw clicks newest
 * first, one NDJSON line each, in chunks of at most EXPORT_PAGE lines (several small links
 * share a chunk). Only text crosses to the event loop, so a million-click export leaves its
 * garbage on the Worker's small heap, collected there. Each line is the clicks list's record
 * (webhooks' clickRecord) with `"type":"click"` first, written straight from the stored row:
 * params are the stored JSON text, not parsed and re-serialised. Last, `unique`: whether the
 * click was its visitor's first visit of its UTC day on the link (counted in uniques), which the
 * record has not, so an import of the export counts the same unique visitors.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import {
  type ClickKey,
  EXPORT_BOT_AT,
  EXPORT_DIMS_AT,
  EXPORT_FIRST_AT,
  EXPORT_RULE_AT,
  ExportPages,
  type ExportRow,
  fewClicksRows,
  fewClicksRowsPg,
  keyAbove,
  PgExportPages,
} from '../clicks/public';
import { CLICK_FIELDS } from '../webhooks/public';
import { EXPORT_PAGE } from './export-cursor';
import { readerValues } from './postgres/store';

/** One link of a page, as the click lines name it (its slug and domain as they are now). */
export interface ClickLinesLink {
  linkId: string;
  /** The link's scope (its value id, analytics' linkScopes): how its clicks are stored. */
  scope: number;
  slug: string;
  domain: string;
  variantIds: string[];
}

/**
 * The click lines of a page of links: plain data, posted to the Worker. `click counts` reads
 * the same clicks and writes only how many there are of each link (a line
 * `[linkId, humans, their first visits of a day, bots]` each): the export's link line says what
 * its counters hold beyond them, and it comes before them.
 */
export interface ClickLinesSpec {
  kind: 'click lines' | 'click counts';
  links: ClickLinesLink[];
  /** The retained window's start, epoch ms. */
  from: number;
  /** The newest click id when the export began: clicks written later never join. */
  maxId: number;
}

/** The dimension keys, in the record's order: `,"country":` ... */
const DIM_KEYS = CLICK_FIELDS.slice(CLICK_FIELDS.indexOf('params') + 1, CLICK_FIELDS.indexOf('bot')).map(
  (name) => `,${JSON.stringify(name)}:`,
);
const text = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));

/**
 * JSON strings already written, by value: a click's texts repeat (its destination, country,
 * browser...), and a map lookup costs a third of escaping them again (measured on 300,000
 * rows: 350-550 against 600-1,200 ms). Cleared when full.
 */
const written = new Map<string, string>();
const WRITTEN_KEPT = 10_000;
function cachedText(value: string | null): string {
  if (value === null) return 'null';
  let json = written.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    if (written.size >= WRITTEN_KEPT) written.clear();
    written.set(value, json);
  }
  return json;
}

/** One link's click lines. */
class ClickLines {
  private readonly variants: ReadonlySet<string>;
  private readonly head: string;
  private readonly tail: string;

  constructor(link: ClickLinesLink) {
    this.variants = new Set(link.variantIds);
    this.head = `,"linkId":${text(link.linkId)},"slug":${text(link.slug)},"timestamp":`;
    this.tail = `,"domain":${text(link.domain)},"unique":`;
  }

  page(rows: readonly ExportRow[]): string {
    let out = '';
    for (const r of rows) {
      const known = r[3] !== null && this.variants.has(r[3]);
      let line = `{"type":"click","id":${r[0]}${this.head}${r[1]},"variantCode":${cachedText(r[2])},"variantKnown":${known},"destination":${cachedText(r[4])},"params":${r[5]}`;
      for (let d = EXPORT_DIMS_AT; d < EXPORT_BOT_AT; d++)
        line += DIM_KEYS[d - EXPORT_DIMS_AT] + cachedText(r[d] as string | null);
      const rule = r[EXPORT_RULE_AT] as number | null;
      out += `${line},"bot":${r[EXPORT_BOT_AT] === 1},"rule":${rule ?? 'null'}${this.tail}${r[EXPORT_FIRST_AT] === 1}}\n`;
    }
    return out;
  }
}

/** What reads one link's pages on either engine: rows, or 'gone' when the link went meanwhile. */
type LinkPages = (before: ClickKey, limit: number) => ExportRow[] | 'gone' | Promise<ExportRow[] | 'gone'>;

/** Links of a page read together (few-clicks.ts on each engine), and the most clicks a link so read may have. */
const FEW_LINKS = 50;
const FEW_CLICKS = 400;

/**
 * The chunks of a page of links' click lines, whichever engine reads them: each chunk is up to
 * EXPORT_PAGE lines, filled from one link after another; null at the end. Links with few
 * clicks are read FEW_LINKS at a time (a statement or two for all of them, rather than a read
 * of the tail and the blocks for each); a link with more, page by page as the CSV export reads
 * it. A link deleted while it is read ends there (its clicks went with it).
 */
abstract class ClickLinesCursorBase {
  private at = 0;
  private pages: LinkPages | null = null;
  private lines: ClickLines | null = null;
  private before: ClickKey = keyAbove(Number.MAX_SAFE_INTEGER);
  /** The rows of the group of links being written, read together; null: read page by page. */
  private few = new Map<string, ExportRow[] | null>();
  private group = 0;

  constructor(protected readonly spec: ClickLinesSpec) {}

  /** Every click of each of these links (by scope) with at most `limit`; null for the others. */
  protected abstract readFew(
    scopes: number[],
    limit: number,
  ): Map<number, ExportRow[] | null> | Promise<Map<number, ExportRow[] | null>>;

  /** A link's pages, read one by one. */
  protected abstract paged(link: ClickLinesLink): LinkPages;

  protected get filter() {
    return { from: this.spec.from, maxId: this.spec.maxId, bots: true };
  }

  private async open(link: ClickLinesLink): Promise<LinkPages> {
    if (!this.few.has(link.linkId)) {
      const links = this.spec.links.slice(this.group, this.group + FEW_LINKS);
      this.group += FEW_LINKS;
      const byScope = await this.readFew(
        links.map((l) => l.scope),
        FEW_CLICKS,
      );
      this.few = new Map(links.map((l) => [l.linkId, byScope.get(l.scope) ?? null]));
    }
    const rows = this.few.get(link.linkId);
    this.few.delete(link.linkId);
    // Read already: handed out a chunk's room at a time.
    if (rows != null) return (_before, limit) => rows.splice(0, limit);
    return this.paged(link);
  }

  async next(): Promise<string | null> {
    if (this.spec.kind === 'click counts') return this.counts();
    const { links } = this.spec;
    let out = '';
    let count = 0;
    while (this.at < links.length && count < EXPORT_PAGE) {
      if (this.pages === null) {
        this.pages = await this.open(links[this.at]!);
        this.lines = new ClickLines(links[this.at]!);
        this.before = keyAbove(Number.MAX_SAFE_INTEGER);
      }
      const limit = EXPORT_PAGE - count;
      const rows = await this.pages(this.before, limit);
      const last = rows === 'gone' ? undefined : rows[rows.length - 1];
      if (rows !== 'gone') {
        out += this.lines!.page(rows);
        count += rows.length;
      }
      if (rows === 'gone' || rows.length < limit || last === undefined) {
        this.at++;
        this.pages = null;
      } else this.before = { timestamp: last[1], id: last[0] };
    }
    return out === '' ? null : out;
  }

  /** `click counts`: the counts so far of the link being read. */
  private counting: [number, number, number] = [0, 0, 0];

  /**
   * `click counts`: the links' clicks read as their lines are, and counted: a line
   * `[linkId, humans, their first visits, bots]` for each link counted to its end, about a
   * chunk's worth of rows read per call (so the Worker collects as it goes); null at the end.
   */
  private async counts(): Promise<string | null> {
    const { links } = this.spec;
    if (this.at >= links.length) return null;
    let out = '';
    let read = 0;
    while (this.at < links.length && read < EXPORT_PAGE) {
      const link = links[this.at]!;
      if (this.pages === null) {
        this.pages = await this.open(link);
        this.before = keyAbove(Number.MAX_SAFE_INTEGER);
        this.counting = [0, 0, 0];
      }
      const rows = await this.pages(this.before, EXPORT_PAGE);
      const n = this.counting;
      if (rows !== 'gone') {
        read += rows.length;
        for (const r of rows) {
          if (r[EXPORT_BOT_AT] === 1) n[2]++;
          else {
            n[0]++;
            if (r[EXPORT_FIRST_AT] === 1) n[1]++;
          }
        }
      }
      const last = rows === 'gone' ? undefined : rows[rows.length - 1];
      if (rows === 'gone' || rows.length < EXPORT_PAGE || last === undefined) {
        out += `${JSON.stringify([link.linkId, ...n])}\n`;
        this.at++;
        this.pages = null;
      } else this.before = { timestamp: last[1], id: last[0] };
    }
    return out;
  }
}

/** On SQLite: the Worker's read-only connection, each read its own short transaction. */
export class ClickLinesCursor extends ClickLinesCursorBase {
  constructor(
    private readonly sqlite: Database,
    spec: ClickLinesSpec,
  ) {
    super(spec);
  }

  protected readFew(scopes: number[], limit: number) {
    return fewClicksRows(this.sqlite, scopes, this.filter, limit);
  }

  protected paged(link: ClickLinesLink): LinkPages {
    const pages = new ExportPages(this.sqlite, link.linkId, this.spec.from, this.spec.maxId, true);
    return (before, limit) => this.sqlite.transaction(() => pages.next(before, limit))();
  }
}

/** On PostgreSQL: the CSV export's pages for a busy link, each asking whether the link still exists. */
export class PgClickLinesCursor extends ClickLinesCursorBase {
  constructor(
    private readonly sql: Pg,
    spec: ClickLinesSpec,
  ) {
    super(spec);
  }

  protected readFew(scopes: number[], limit: number) {
    return fewClicksRowsPg(this.sql, readerValues(this.sql), scopes, this.filter, limit);
  }

  protected paged(link: ClickLinesLink): LinkPages {
    const pages = new PgExportPages(this.sql, readerValues(this.sql), link.linkId, this.filter);
    return async (before, limit) => {
      const rows = await pages.next(before, limit);
      return rows === 'link deleted' ? 'gone' : rows;
    };
  }
}
