/** Variant verbs: second addresses of a link whose params layer over the link's. */
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkParams } from '../../lib/params';
import { getLinkRowOrThrow } from '../links/service';
import { writeLinks } from '../links/writes';
import type { CreateVariantInput, UpdateVariantInput, Variant } from './model';
import type { VariantRow } from './repo';
import * as repo from './repo';

function codeTaken(deps: Deps, linkId: string, code: string): never | void {
  if (repo.findVariantByCode(deps.db, linkId, code)) {
    throw conflict('code', `The code "${code}" is already used on this link`);
  }
}

export function listVariants(deps: Deps, linkId: string): Variant[] {
  const link = getLinkRowOrThrow(deps, linkId);
  const rows = repo.findVariantsByLinkIds(deps.db, [linkId]).get(linkId) ?? [];
  return rows.map((row) => repo.toVariant(row, deps.config.shortHost, link.slug));
}

export function createVariant(deps: Deps, linkId: string, input: CreateVariantInput): Variant {
  const link = getLinkRowOrThrow(deps, linkId);
  const params = checkParams(input.params ?? {});
  codeTaken(deps, linkId, input.code);
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
  writeLinks(deps, (w) => repo.insertVariant(w, row));
  return repo.toVariant(row, deps.config.shortHost, link.slug);
}

export function updateVariant(deps: Deps, linkId: string, variantId: string, input: UpdateVariantInput): Variant {
  const link = getLinkRowOrThrow(deps, linkId);
  const current = repo.findVariant(deps.db, linkId, variantId);
  if (!current) throw notFound('variant');
  const changes: Partial<VariantRow> = {};
  if (input.code !== undefined && input.code !== current.code) {
    codeTaken(deps, linkId, input.code);
    changes.code = input.code;
  }
  if (input.params !== undefined) changes.params = checkParams(input.params);
  if (Object.keys(changes).length > 0) {
    changes.updatedAt = Math.max(deps.clock.now(), current.updatedAt);
    writeLinks(deps, (w) => repo.updateVariantRow(w, linkId, variantId, changes));
  }
  return repo.toVariant({ ...current, ...changes }, deps.config.shortHost, link.slug);
}

/** Deletes a variant; its past clicks stay and report as an unrecognised code. */
export function deleteVariant(deps: Deps, linkId: string, variantId: string): { id: string; deleted: true } {
  getLinkRowOrThrow(deps, linkId);
  if (!repo.findVariant(deps.db, linkId, variantId)) throw notFound('variant');
  writeLinks(deps, (w) => repo.deleteVariantRow(w, linkId, variantId));
  return { id: variantId, deleted: true };
}
