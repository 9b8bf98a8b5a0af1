/**
 * Making a page's new links: the links and their mappings in one transaction through the link
 * writer's bulk insert (audited, webhooks and the slug index as any link write), a page whose
 * insert fails on one row retried link by link, then the variants of those that have some.
 * The mapping written with each link is what lets a stopped run's resume make nothing twice.
 */
import { newId } from '../../../lib/ids';
import { auditEntry } from '../../audit/public';
import { insertBulkLinks, insertVariant } from '../../links/public';
import type { PlannedVariant } from '../decide';
import type { ImportDeps } from '../deps';
import type { ImportLinkRow } from '../store';
import type { RunPlan } from './plan';
import { settled } from './settled';
import type { Planned } from './work';

/**
 * Writes a page's new links and their mappings in one transaction (the links' insert runs the
 * mappings' statement in it): a run that dies finds each link with its mapping, or neither. A
 * link with variants is mapped `creating` there, then `created` once its variants are made: a
 * run that dies in between finds it `creating` and makes its missing variants (pageLinks).
 */
export async function writeLinks(deps: ImportDeps, plan: RunPlan, planned: Planned[], now: number) {
  /** The links to make: narrowed to those made when the page's insert fails on some row. */
  let making = planned;
  const store = deps.stores.imports;
  const mapping = (p: Planned, state: 'creating' | 'created'): ImportLinkRow => ({
    identity: plan.identity,
    sourceId: p.link.sourceId,
    linkId: p.row!.id,
    state,
    runId: plan.id,
    visitAt: p.mapping?.visitAt ?? null,
    visitAtCount: p.mapping?.visitAtCount ?? 0,
    day: p.mapping?.day ?? null,
    totalSet: p.mapping?.totalSet ?? false,
    sourceCounts: p.mapping?.sourceCounts ?? null,
    at: now,
  });
  const fields = ['destination', 'domain', 'slug', ...(plan.target.projectId !== null ? ['projectId'] : [])];
  const audit = auditEntry(plan.access, 'link.create', { type: 'link', id: '' }, fields, now);
  const insert = (some: Planned[]) => {
    const byId = new Map(some.map((p) => [p.row!.id, p]));
    return insertBulkLinks(
      deps,
      some.map((p) => ({ row: p.row!, tags: p.tags })),
      {
        skipExisting: false,
        // A slug taken meanwhile (by another writer, between the decision and the write).
        freshSlug: () => {
          throw new Error('slug taken meanwhile');
        },
        // The mappings of the links written, in their transaction.
        also: (tx, written) =>
          store.putMappingsIn(
            tx,
            written.map((w) => {
              const p = byId.get(w.row.id)!;
              return mapping(p, p.variants.length > 0 ? 'creating' : 'created');
            }),
          ),
      },
      audit,
    );
  };
  const failed = (p: Planned, err: unknown) => {
    p.item.outcome = 'failed';
    p.item.reason = (err as Error).message ?? String(err);
  };
  try {
    await insert(making);
  } catch (err) {
    if (making.length === 1) {
      failed(making[0]!, err);
      return;
    }
    // The page's insert failed on some row: each link alone, so only that one fails with its reason.
    const made: Planned[] = [];
    for (const p of making) {
      try {
        await insert([p]);
        made.push(p);
      } catch (one) {
        failed(p, one);
      }
    }
    making = made;
  }
  for (const p of making) p.mapping = mapping(p, 'created');
  // The variants of the links that have some, the links side by side; then their mappings.
  const varied = making.filter((p) => p.variants.length > 0);
  if (varied.length === 0) return;
  await settled(varied.map((p) => makeVariants(deps, plan, p.row!.id, p.variants, now)));
  await putMappings(
    deps,
    varied.map((p) => p.mapping!),
  );
}

/**
 * A new link's variants, before its clicks (a click names the variant it went through): those of
 * `variants` whose code the link has not yet, so a resumed run completes a link whose variants a
 * stopped run never made and makes none twice.
 */
export async function makeVariants(
  deps: ImportDeps,
  plan: RunPlan,
  linkId: string,
  variants: PlannedVariant[],
  now: number,
) {
  if (variants.length === 0) return;
  const have = new Set(((await deps.stores.variants.ofLinks([linkId])).get(linkId) ?? []).map((v) => v.code));
  for (const v of variants) {
    if (have.has(v.code)) continue;
    const id = newId('var');
    const audit = auditEntry(plan.access, 'variant.create', { type: 'variant', id }, ['code', 'params'], now);
    const row = { id, linkId, code: v.code, params: v.params, clickCount: 0, createdAt: now, updatedAt: now };
    await insertVariant(deps, row, audit);
  }
}

/**
 * A page's mappings: in one transaction where the store has it (one commit for the page),
 * else side by side.
 */
async function putMappings(deps: ImportDeps, rows: ImportLinkRow[]) {
  const store = deps.stores.imports;
  if (store.putMappings) await store.putMappings(rows);
  else await settled(rows.map((row) => store.putMapping(row)));
}
