/**
 * The variant breakdown (docs/behaviour.md, "Link and workspace statistics"). Rollups count a
 * click with a code under the value (variant, <id of the variant the code matched when
 * clicked, or ''>, <code>), and none for a click on the bare link. Variant ids are unique across
 * links, so a workspace bucket, which adds up its links' values, still keeps each link's
 * variants apart: they are told apart here, when named, and no bucket needs rewriting.
 */
import type { WorkspaceVariant } from './model';
import { compareText, top } from './top';

/** A variant that exists now, as the statistics name it (analytics/service.ts variantLabels). */
export interface VariantLabel {
  code: string;
  linkId: string;
  slug: string;
}

/** A variant's clicks in the window, whatever its codes were when clicked. */
export interface KnownVariant {
  id: string;
  label: VariantLabel;
  clicks: number;
}

/** One variant value's clicks: `key` is the variant id when clicked ('' when the code matched none). */
export interface VariantValue {
  key: string;
  code: string;
  clicks: number;
}

/**
 * Known variants by id and unrecognised codes by code. A renamed variant keeps its clicks
 * under its current code; a code that matched nothing, or whose variant is gone, is
 * unrecognised. `labels` names the variants of the ids asked for that exist now.
 */
export async function groupVariants(
  values: VariantValue[],
  labels: (ids: string[]) => Promise<Map<string, VariantLabel>>,
): Promise<{ known: KnownVariant[]; unknown: Map<string, number> }> {
  const named = await labels([...new Set(values.flatMap((v) => (v.key === '' ? [] : [v.key])))]);
  const known = new Map<string, KnownVariant>();
  const unknown = new Map<string, number>();
  for (const { key, code, clicks } of values) {
    const label = key === '' ? undefined : named.get(key);
    if (label === undefined) {
      unknown.set(code, (unknown.get(code) ?? 0) + clicks);
      continue;
    }
    const entry = known.get(key);
    if (entry) entry.clicks += clicks;
    else known.set(key, { id: key, label, clicks });
  }
  return { known: [...known.values()], unknown };
}

/** The value of the link's own row: its bare address, and codes that match no variant now. */
export const OWN_ROW = '';

/**
 * A link's variant breakdown: each variant under its current code, and `""` for every other
 * click of the window (the bare link, and unrecognised codes, which redirect as the bare link
 * does or whose variant is gone), so the entries add up to `clicks` (totals.clicks).
 */
export function linkVariantRows(known: KnownVariant[], clicks: number): { value: string; clicks: number }[] {
  const rows = known.map((k) => ({ value: k.label.code, clicks: k.clicks }));
  const own = clicks - rows.reduce((sum, r) => sum + r.clicks, 0);
  if (own > 0) rows.push({ value: OWN_ROW, clicks: own });
  return top(rows, (a, b) => compareText(a.value, b.value));
}

/**
 * The workspace's variant breakdown: one entry per variant of each link, `<slug>/<code>` by
 * their current names. Clicks on links themselves are not listed (every link has them).
 */
export function workspaceVariantRows(known: KnownVariant[]): WorkspaceVariant[] {
  return top(
    known.map((k) => ({
      value: `${k.label.slug}/${k.label.code}`,
      linkId: k.label.linkId,
      code: k.label.code,
      clicks: k.clicks,
    })),
    (a, b) => compareText(a.value, b.value),
  );
}
