/**
 * The statistics chart, drawn by uPlot on a canvas. Only ever loaded with import(): the build
 * splits it (and uPlot, ~23 KB gzipped) into a chunk that only the statistics pages fetch.
 * uPlot sizes and places its elements through the CSSOM (`el.style.x = ...`), which the
 * dashboard's CSP allows; it writes no `style` attributes and no <style> elements.
 */
import uPlot from 'uplot';
import { formatUtcTicks } from './format';

export interface ChartData {
  /** Bucket starts, epoch ms (UTC hours or days). */
  t: number[];
  clicks: number[];
  uniques: number[];
}

/** Canvas colours, read from the page's CSS variables (a canvas cannot read them itself). */
export interface ChartColours {
  clicks: string;
  clicksFill: string;
  uniques: string;
  text: string;
  grid: string;
}

export interface Chart {
  resize(width: number): void;
  destroy(): void;
}

export const CHART_HEIGHT = 240;

/** Whole numbers only on the count axis: a click is never half a click. */
const COUNT_STEPS = [1, 2, 5]
  .flatMap((n) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7].map((p) => n * p))
  .sort((a, b) => a - b);

const utc = (ms: number) => uPlot.tzDate(new Date(ms), 'Etc/UTC');

const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;
/** Room each time label needs: "2026-11-26" for days, "14:00" over a day for hours. */
const TICK_SPACE = { hour: 72, day: 96 } as const;
/** The count axis's width, CSS px. */
const COUNT_AXIS = 48;
/**
 * CSS px kept free between the plot's edges and the first and last points (and above the
 * highest): a point on the edge has half its line, its peak and the cursor's dot on it cut off,
 * which on a phone is most of the newest hour. Scale padding, not plot padding: uPlot clips to
 * the plot, so the room must be inside it.
 */
const EDGE = 8;

export function drawChart(
  box: HTMLElement,
  data: ChartData,
  unit: 'hour' | 'day',
  colours: ChartColours,
  onHover: (index: number | null) => void,
): Chart {
  let width = box.clientWidth;
  // [min, max] widened by EDGE px at each end, for the plot's width at `width`.
  const timeRange = (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => {
    if (min === max) return [min - BUCKET_MS[unit], max + BUCKET_MS[unit]];
    const plot = Math.max(4 * EDGE, width - COUNT_AXIS);
    const pad = ((max - min) * EDGE) / (plot - 2 * EDGE);
    return [min - pad, max + pad];
  };
  const axis = {
    stroke: colours.text,
    grid: { stroke: colours.grid, width: 1 },
    ticks: { stroke: colours.grid, width: 1 },
  };
  const options: uPlot.Options = {
    width,
    height: CHART_HEIGHT,
    ms: 1,
    tzDate: utc,
    legend: { show: false },
    // The cursor line sits on the nearest point (the one the readout names), and only across.
    cursor: {
      y: false,
      drag: { x: false, y: false },
      move: (u, left, top) => {
        // Off the plot (uPlot says so with a negative left) stays off: no point to snap to.
        if (left < 0) return [left, top];
        const at = u.data[0][u.posToIdx(left)];
        return [at === undefined ? left : Math.round(u.valToPos(at, 'x')), top];
      },
    },
    scales: {
      x: { time: true, range: timeRange },
      // The plot is about 170 px of the chart's 240 (the time axis takes the rest).
      y: { range: (_u, _min, max) => [0, Math.max(1, max) * (1 + EDGE / 170)] },
    },
    axes: [
      { ...axis, space: TICK_SPACE[unit], values: (_u, ticks) => formatUtcTicks(ticks, unit) },
      { ...axis, incrs: COUNT_STEPS, size: COUNT_AXIS },
    ],
    series: [
      {},
      { label: 'Clicks', stroke: colours.clicks, fill: colours.clicksFill, width: 2 },
      { label: 'Unique visitors', stroke: colours.uniques, width: 2, dash: [6, 4] },
    ],
    // Off the plot (left < 0, as when first drawn) no point is read out.
    hooks: { setCursor: [(u) => onHover((u.cursor.left ?? -1) < 0 ? null : (u.cursor.idx ?? null))] },
  };
  const chart = new uPlot(options, [data.t, data.clicks, data.uniques], box);
  return {
    resize: (next) => {
      width = next;
      chart.setSize({ width, height: CHART_HEIGHT });
      // Ranges the time scale again: its padding is in px of the new width.
      chart.setData(chart.data);
    },
    destroy: () => chart.destroy(),
  };
}
