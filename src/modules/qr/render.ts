/**
 * A URL as an SVG QR code: black modules on white, a quiet zone of 4 modules, drawn as one path
 * of horizontal runs with crisp edges, so a rasteriser never blurs two modules into grey.
 */
import QRCode from 'qrcode';

/** Modules of white around the symbol, as the QR standard asks. */
const QUIET_ZONE = 4;
/** The smallest size served (px); the error correction is chosen for it. */
export const MIN_QR_SIZE = 96;
export const MAX_QR_SIZE = 2048;
export const DEFAULT_QR_SIZE = 256;
/**
 * Below about 2.5 px per module a phone or zbar stops reading a code (docs/behaviour.md, "QR codes"). The
 * strongest error correction whose symbol still gets this many px per module at 96 px wins.
 */
const MIN_PX_PER_MODULE = 2.5;
const LEVELS = ['H', 'Q', 'M', 'L'] as const;
type CorrectionLevel = (typeof LEVELS)[number];

interface QrSymbol {
  level: CorrectionLevel;
  /** Modules per side, quiet zone excluded. */
  size: number;
  /** Row-major, 1 = dark. */
  data: Uint8Array;
}

/**
 * The symbol for a URL: the highest error correction (H, then Q, M, L) that keeps it readable
 * at the smallest size. More correction means more modules, so a long URL gets less of it;
 * past what L fits at 96 px, L (the fewest modules) is the best there is.
 */
export function qrSymbol(url: string): QrSymbol {
  for (const level of LEVELS) {
    const code = QRCode.create(url, { errorCorrectionLevel: level });
    const side = code.modules.size + 2 * QUIET_ZONE;
    if (MIN_QR_SIZE / side >= MIN_PX_PER_MODULE || level === 'L') {
      return { level, size: code.modules.size, data: code.modules.data };
    }
  }
  throw new Error('unreachable: level L always returns');
}

/** The SVG document, `px` wide and high. No user text goes in: only numbers. */
export function qrSvg(symbol: QrSymbol, px: number): string {
  const side = symbol.size + 2 * QUIET_ZONE;
  let path = '';
  for (let y = 0; y < symbol.size; y++) {
    const row = y * symbol.size;
    for (let x = 0; x < symbol.size; ) {
      if (!symbol.data[row + x]) {
        x++;
        continue;
      }
      let end = x + 1;
      while (end < symbol.size && symbol.data[row + end]) end++;
      path += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h${end - x}v1h-${end - x}z`;
      x = end;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px}" height="${px}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${path}"/></svg>\n`
  );
}
