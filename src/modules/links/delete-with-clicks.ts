/**
 * The dashboard's delete: a link WITH its history. Only a person may destroy recorded clicks
 * (the API answers 409 delete_requires_dashboard), and only after typing the link's slug.
 */

import { invalid } from '../../lib/errors';
import type { Access } from '../access/public';
import type { LinksDeps } from './deps';
import { deleteLink, getLinkRowOrThrow } from './service';

/**
 * Deletes the link, its raw clicks and its statistics; the workspace's
 * rollups lose its counts in the same transaction (the store's delete), and its buffered clicks are
 * dropped (the slug index's remove). `slug` must equal the link's current slug exactly.
 */
export async function deleteLinkWithClicks(deps: LinksDeps, access: Access, id: string, slug: string): Promise<void> {
  const row = await getLinkRowOrThrow(deps, access, id);
  if (slug !== row.slug) throw invalid('slug', 'Type the slug of the link exactly to confirm the delete');
  await deleteLink(deps, access, id, true); // withClicks
}
