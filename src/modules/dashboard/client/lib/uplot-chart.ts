/**
 * The statistics chart, drawn by uPlot on a canvas. Only ever loaded with import(): the build
 * splits it (and uPlot, ~23 KB gzipped) into a chunk that only the statistics pages fetch.
 * uPlot sizes and places its elements through the CSSOM (`el.style.x = ...`), which the
 * dashboard's CSP allows; it writes no `style` attributes and no <style> elements.
 */
import uPlot from 'uplot';

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

export function drawChart(
  box: HTMLElement,
  data: ChartData,
  colours: ChartColours,
  onHover: (index: number | null) => void,
): Chart {
  const axis = {
    stroke: colours.text,
    grid: { stroke: colours.grid, width: 1 },
    ticks: { stroke: colours.grid, width: 1 },
  };
  const options: uPlot.Options = {
    width: box.clientWidth,
    height: CHART_HEIGHT,
    ms: 1,
    tzDate: utc,
    legend: { show: false },
    // The cursor line sits on the nearest point (the one the readout names), and only across.
    cursor: {
      y: false,
      drag: { x: false, y: false },
      move: (u, left, top) => {
        const at = u.data[0][u.posToIdx(left)];
        return [at === undefined ? left : Math.round(u.valToPos(at, 'x')), top];
      },
    },
    scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [axis, { ...axis, incrs: COUNT_STEPS, size: 48 }],
    series: [
      {},
      { label: 'Clicks', stroke: colours.clicks, fill: colours.clicksFill, width: 2 },
      { label: 'Unique visitors', stroke: colours.uniques, width: 2, dash: [6, 4] },
    ],
    hooks: { setCursor: [(u) => onHover(u.cursor.idx ?? null)] },
  };
  const chart = new uPlot(options, [data.t, data.clicks, data.uniques], box);
  return {
    resize: (width) => chart.setSize({ width, height: CHART_HEIGHT }),
    destroy: () => chart.destroy(),
  };
}
