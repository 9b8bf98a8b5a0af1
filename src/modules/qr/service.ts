/** QR verbs: which URL a link's code encodes, rendered. No HTTP here. */
import type { Deps } from '../../deps';
import { notFound } from '../../lib/errors';
import { sha256Hex } from '../../lib/hash';
import { shortUrlOf } from '../../lib/short-url';
import { getLinkRowOrThrow } from '../links/service';
import { findVariantByCode } from '../variants/repo';
import type { QrInput } from './model';
import { DEFAULT_QR_SIZE, qrSvg, qrSymbol } from './render';

export interface RenderedQr {
  svg: string;
  /** Strong ETag of the SVG: it changes with the URL (slug, variant) and the size. */
  etag: string;
}

export function linkQr(deps: Deps, id: string, input: QrInput): RenderedQr {
  const link = getLinkRowOrThrow(deps, id);
  let code: string | undefined;
  if (input.variant !== undefined) {
    const variant = findVariantByCode(deps.db, id, input.variant);
    if (!variant) throw notFound('variant');
    code = variant.code;
  }
  const svg = qrSvg(qrSymbol(shortUrlOf(deps.config.shortHost, link.slug, code)), input.size ?? DEFAULT_QR_SIZE);
  return { svg, etag: `"${sha256Hex(svg).slice(0, 32)}"` };
}
