/**
 * Hand-made ClickRecords for tests of the click pipeline, backed by a real LinkTable (the slug
 * index's storage), so a record carries its link the way the redirect captures it.
 */
import type { ClickRecord } from '../../src/modules/clicks/capture/record';
import { blockLocation, blockSerial } from '../../src/modules/clicks/capture/target-block';
import { LinkTable } from '../../src/modules/redirect/link-table';

export interface TestTarget {
  readonly links: LinkTable;
  readonly slot: number;
  /** The variant's block, or -1: the target is the link itself. */
  readonly variantAt: number;
  readonly location: string;
  readonly paramsJson: string;
  /** The serial the click's target carries: the variant's, else the link block's. */
  readonly serial: number;
  /** The link's live counters now. */
  readonly counters: { humanClicks: number; unsorted: number };
}

export interface TargetOptions {
  linkId?: string;
  /** A variant target (code `b`, with this id) when set. */
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
  const variant = options.variantId != null;
  const slot = links.put(
    {
      id: options.linkId ?? 'lnk_test',
      slug: 'test',
      domainId: 1,
      status: 'active',
      expiresAt: null,
      clickLimit: null,
      fallbackUrl: null,
      passwordHash: null,
      rules: [],
      preview: null,
      redirectStatus: 302,
      forwardQuery: false,
      location: variant ? 'https://example.com/base' : location,
      paramsJson: variant ? '{}' : paramsJson,
    },
    variant ? [{ code: 'b', variantId: options.variantId!, location, paramsJson }] : [],
    options.humanClicks ?? 0,
  );
  links.unsorted[slot] = options.unsorted ?? 0;
  return {
    links,
    slot,
    variantAt: variant ? links.variantAt(slot, 'b') : -1,
    location,
    paramsJson,
    serial: blockSerial(links.arena, variant ? links.variantAt(slot, 'b') : links.blockAt[slot]!),
    get counters() {
      return { humanClicks: links.humanClicks[slot]!, unsorted: links.unsorted[slot]! };
    },
  };
}

/** A click on `slot` of `links` as the redirect pushes it (to the variant block at `variantAt` unless -1). */
export function recordAt(links: LinkTable, slot: number, variantAt = -1, over: Partial<ClickRecord> = {}): ClickRecord {
  const at = links.blockAt[slot]!;
  return {
    time: Date.UTC(2026, 10, 21, 12),
    links,
    slot,
    arena: links.arena,
    at,
    variantAt,
    location: blockLocation(links.arena, variantAt < 0 ? at : variantAt),
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
  return recordAt(target.links, target.slot, target.variantAt, over);
}
