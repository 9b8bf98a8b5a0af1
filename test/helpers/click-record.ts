/**
 * Hand-made ClickRecords for tests of the click pipeline, backed by a real LinkTable (the slug
 * index's storage), so a record carries its link the way the redirect captures it.
 */
import type { ClickRecord, ClickVariant } from '../../src/modules/clicks/record';
import { blockSerial } from '../../src/modules/clicks/target-block';
import { LinkTable } from '../../src/modules/redirect/link-table';

export interface TestTarget {
  readonly links: LinkTable;
  readonly slot: number;
  readonly variant: ClickVariant | null;
  readonly location: string;
  readonly paramsJson: string;
  /** The serial the click's target carries: the variant's, else the link block's. */
  readonly serial: number;
  /** The link's live counters now. */
  readonly counters: { humanClicks: number; unsorted: number };
}

export interface TargetOptions {
  linkId?: string;
  /** A variant target (code `b`) when set. */
  variantId?: string | null;
  location?: string;
  paramsJson?: string;
  humanClicks?: number;
  unsorted?: number;
}

/** A one-link table; the target is the link itself, or its variant when `variantId` is set. */
export function testTarget(options: TargetOptions = {}): TestTarget {
  const links = new LinkTable();
  const location = options.location ?? 'https://example.com/';
  const paramsJson = options.paramsJson ?? '{}';
  const variant =
    options.variantId == null ? null : Object.freeze({ serial: 7, variantId: options.variantId, location, paramsJson });
  const slot = links.put(
    {
      id: options.linkId ?? 'lnk_test',
      slug: 'test',
      status: 'active',
      expiresAt: null,
      clickLimit: null,
      location: variant === null ? location : 'https://example.com/base',
      paramsJson: variant === null ? paramsJson : '{}',
    },
    variant === null ? new Map() : new Map([['b', variant]]),
    options.humanClicks ?? 0,
  );
  links.unsorted[slot] = options.unsorted ?? 0;
  return {
    links,
    slot,
    variant,
    location,
    paramsJson,
    serial: variant?.serial ?? blockSerial(links.arena, links.blockAt[slot]!),
    get counters() {
      return { humanClicks: links.humanClicks[slot]!, unsorted: links.unsorted[slot]! };
    },
  };
}

/** A click on `slot` of `links` as the redirect pushes it (its variant's location when given). */
export function recordAt(
  links: LinkTable,
  slot: number,
  variant: ClickVariant | null,
  over: Partial<ClickRecord> = {},
): ClickRecord {
  return {
    time: Date.UTC(2026, 10, 21, 12),
    links,
    slot,
    arena: links.arena,
    at: links.blockAt[slot]!,
    variant,
    location: variant?.location ?? links.location(slot),
    code: null,
    address: '81.2.69.160',
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    referrer: null,
    acceptLanguage: null,
    head: false,
    bot: null,
    ...over,
  };
}

/** A click on a test target. */
export function clickRecord(target: TestTarget, over: Partial<ClickRecord> = {}): ClickRecord {
  return recordAt(target.links, target.slot, target.variant, over);
}
