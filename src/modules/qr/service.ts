/** QR verbs: which URL a link's code encodes, rendered. No HTTP here. */

import { notFound } from '../../lib/errors';
import { sha256Hex } from '../../lib/hash';
import { shortUrlOf } from '../../lib/short-url';
import type { Access } from '../access/public';
import { getLinkRowOrThrow } from '../links/public';
import type { QrDeps } from './deps';
import type { QrInput } from './model';
import { DEFAULT_QR_SIZE, qrSvg, qrSymbol } from './render';

/**
 * Bump when the drawing changes (render.ts): the ETag names the inputs, not the bytes, so a
 * revalidation (304) costs no rendering.
 */
const DRAWING = 1;

interface LinkQr {
  /** Strong ETag: it changes with the URL (domain, slug, variant), the size and the drawing. */
  etag: string;
  svg(): string;
}

export async function linkQr(deps: QrDeps, access: Access, id: string, input: QrInput): Promise<LinkQr> {
  const link = await getLinkRowOrThrow(deps, access, id);
  let code: string | undefined;
  if (input.variant !== undefined) {
    const variant = await deps.stores.variants.findByCode(id, input.variant);
    if (!variant) throw notFound('variant');
    code = variant.code;
  }
  const url = shortUrlOf(deps.domains.originOf(link.domainId), link.slug, code);
  const size = input.size ?? DEFAULT_QR_SIZE;
  return { etag: `"${sha256Hex(`${DRAWING}\n${size}\n${url}`).slice(0, 32)}"`, svg: () => qrSvg(qrSymbol(url), size) };
}
