/**
 * A d3-geo path context that writes compact SVG path data: points are snapped to a grid of 0.1
 * user units, written as relative moves (`m`/`l`, the `l` implied after the first pair) so most
 * numbers are a digit or two, and a point that lands on the previous one is skipped. Snapping
 * first and taking differences of the snapped integers keeps every point exact: no drift
 * accumulates along a long coastline. A ring left with fewer than three distinct points (an
 * islet smaller than the grid) is dropped, except when it is all a feature has: a country's
 * element must exist even if it is too small to see.
 */
type Point = [number, number];

const SCALE = 10; // 1 decimal

/** Tenths as the shortest decimal SVG reads: 5 -> ".5", -12 -> "-1.2", 30 -> "3". */
export function formatTenths(t: number): string {
  const a = Math.abs(t);
  const whole = Math.floor(a / SCALE);
  const frac = a % SCALE;
  const sign = t < 0 ? '-' : '';
  if (frac === 0) return `${sign}${whole}`;
  return `${sign}${whole === 0 ? '' : whole}.${frac}`;
}

export class CompactPath {
  private rings: Point[][] = [];
  private ring: Point[] | null = null;

  moveTo(x: number, y: number): void {
    this.ring = [];
    this.rings.push(this.ring);
    this.lineTo(x, y);
  }

  lineTo(x: number, y: number): void {
    const ring = this.ring;
    if (!ring) return;
    const p: Point = [Math.round(x * SCALE), Math.round(y * SCALE)];
    const last = ring[ring.length - 1];
    if (last && last[0] === p[0] && last[1] === p[1]) return;
    ring.push(p);
  }

  closePath(): void {
    const ring = this.ring;
    // The closing point is implied by `z`.
    if (ring && ring.length > 1 && ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1]) ring.pop();
    this.ring = null;
  }

  // Only Point geometries draw arcs; the map has none.
  arc(): void {
    throw new Error('CompactPath: points are not supported');
  }

  beginPath(): void {}

  /** The path data of everything drawn since the last call, and a fresh start. */
  take(): string {
    let rings = this.rings.filter((r) => r.length >= 3);
    if (rings.length === 0 && this.rings.length > 0) {
      rings = [this.rings.reduce((a, b) => (b.length > a.length ? b : a))];
    }
    this.rings = [];
    this.ring = null;
    const out = new PathWriter();
    // After `z` the current point is the subpath's start, which the next relative `m` is from.
    let cx = 0;
    let cy = 0;
    for (const ring of rings) {
      const [sx, sy] = ring[0]!;
      out.command('m');
      out.number(sx - cx);
      out.number(sy - cy);
      let px = sx;
      let py = sy;
      for (let i = 1; i < ring.length; i++) {
        const [x, y] = ring[i]!;
        out.number(x - px);
        out.number(y - py);
        px = x;
        py = y;
      }
      out.command('z');
      cx = sx;
      cy = sy;
    }
    return out.text;
  }
}

/** Joins commands and numbers with a separator only where SVG's path grammar needs one. */
class PathWriter {
  text = '';
  private afterNumber = false;
  private lastHasDot = false;

  command(letter: string): void {
    this.text += letter;
    this.afterNumber = false;
  }

  number(t: number): void {
    const s = formatTenths(t);
    // "-" always starts a number; "." starts one only after a number that has its own dot
    // ("1.5.5" is 1.5 and .5, but "15.5" is one number).
    const needsSep = this.afterNumber && s[0] !== '-' && !(s[0] === '.' && this.lastHasDot);
    this.text += needsSep ? ` ${s}` : s;
    this.afterNumber = true;
    this.lastHasDot = s.includes('.');
  }
}
