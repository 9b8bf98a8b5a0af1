/** Variant verbs: second addresses of a link whose params layer over the link's. */

import { isUniqueViolation } from '../../db/storage';
import { conflict, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkParams } from '../../lib/params';
import { type Access, requireSees } from '../access/public';
import { auditEntry, fieldsOf } from '../audit/public';
import type { VariantsDeps } from './deps';
import type { CreateVariantInput, UpdateVariantInput, Variant } from './model';
import type { VariantRow } from './store';
import { toVariant } from './to-variant';

/** The variant's link, or 404 link (also one the caller may not see): its slug, and the origin of its domain. */
async function linkOf(deps: VariantsDeps, access: Access, linkId: string): Promise<{ slug: string; origin: string }> {
  const link = await deps.stores.links.find(linkId);
  if (!link) throw notFound('link');
  requireSees(access, link);
  return { slug: link.slug, origin: deps.domains.originOf(link.domainId) };
}

const codeUsed = (code: string) => conflict('code', `The code "${code}" is already used on this link`);

async function checkCodeFree(deps: VariantsDeps, linkId: string, code: string): Promise<void> {
  if (await deps.stores.variants.findByCode(linkId, code)) throw codeUsed(code);
}

/** A write that met the unique index: the code was taken between the check and the write. */
async function written(write: Promise<void>, code: string | undefined): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (code !== undefined && isUniqueViolation(err)) throw codeUsed(code);
    throw err;
  }
}

export async function listVariants(deps: VariantsDeps, access: Access, linkId: string): Promise<Variant[]> {
  const link = await linkOf(deps, access, linkId);
  const rows = (await deps.stores.variants.ofLinks([linkId])).get(linkId) ?? [];
  return rows.map((row) => toVariant(row, link.origin, link.slug));
}

export async function createVariant(
  deps: VariantsDeps,
  access: Access,
  linkId: string,
  input: CreateVariantInput,
): Promise<Variant> {
  const link = await linkOf(deps, access, linkId);
  const params = checkParams(input.params ?? {});
  await checkCodeFree(deps, linkId, input.code);
  const now = deps.clock.now();
  const row: VariantRow = {
    id: newId('var'),
    linkId,
    code: input.code,
    params,
    clickCount: 0,
    createdAt: now,
    updatedAt: now,
  };
  const audit = auditEntry(access, 'variant.create', { type: 'variant', id: row.id }, fieldsOf(input), now);
  await written(deps.variantWrites.insert(row, audit), row.code);
  return toVariant(row, link.origin, link.slug);
}

export async function updateVariant(
  deps: VariantsDeps,
  access: Access,
  linkId: string,
  variantId: string,
  input: UpdateVariantInput,
): Promise<Variant> {
  const link = await linkOf(deps, access, linkId);
  const current = await deps.stores.variants.find(linkId, variantId);
  if (!current) throw notFound('variant');
  const changes: Partial<VariantRow> = {};
  if (input.code !== undefined && input.code !== current.code) {
    await checkCodeFree(deps, linkId, input.code);
    changes.code = input.code;
  }
  if (input.params !== undefined) changes.params = checkParams(input.params);
  if (Object.keys(changes).length > 0) {
    changes.updatedAt = Math.max(deps.clock.now(), current.updatedAt);
    const fields = fieldsOf({ ...changes, updatedAt: undefined });
    const audit = auditEntry(access, 'variant.update', { type: 'variant', id: variantId }, fields, deps.clock.now());
    await written(deps.variantWrites.update(linkId, variantId, changes, audit), changes.code);
  }
  return toVariant({ ...current, ...changes }, link.origin, link.slug);
}

/** Deletes a variant; its past clicks stay and report as an unrecognised code. */
export async function deleteVariant(
  deps: VariantsDeps,
  access: Access,
  linkId: string,
  variantId: string,
): Promise<{ id: string; deleted: true }> {
  await linkOf(deps, access, linkId);
  if (!(await deps.stores.variants.find(linkId, variantId))) throw notFound('variant');
  const audit = auditEntry(access, 'variant.delete', { type: 'variant', id: variantId }, [], deps.clock.now());
  await deps.variantWrites.delete(linkId, variantId, audit);
  return { id: variantId, deleted: true };
}
