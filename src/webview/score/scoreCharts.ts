// The Score panel's charts (Chart.js, loaded by the page as its own script): the timing samples of each timed
// quantity, and the ratio as the data grows. Drawn in the theme's colours, and again when the theme changes.
import type { Chart as ChartInstance, ChartConfiguration, Scale } from 'chart.js';
import { QUANTITY_LABELS } from '../../core/text/evalLabels';
import { plainText } from '../../core/text/terminalText';
import type { TimedQuantity } from '../../core/timing/types';
import type { ScoreResult, TimingSummary } from '../../shared/protocol';
import { Child, h, icon, selectedValue } from '../common/dom';
import { milliseconds } from '../common/format';
import { ratio } from './scoreFormat';

const QUANTITY_TEXT: Record<TimedQuantity, string> = { 'first-row': 'first row (VES)', full: 'all rows (R-VES)' };
const quantityText = (timing: TimingSummary) => QUANTITY_TEXT[timing.quantity] ?? timing.quantity;
const SAME_PROGRAM_TEXT = 'Same program as gold: identical work, ratio 1 by construction, not timed';

interface ThemeColours {
  foreground: string;
  muted: string;
  grid: string;
  gold: string;
  pred: string;
  line: string;
  font: string;
}

function themeColours(): ThemeColours {
  const style = getComputedStyle(document.body);
  const colour = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    foreground: colour('--vscode-foreground', '#888'),
    muted: colour('--vscode-descriptionForeground', '#888'),
    grid: colour('--vscode-charts-lines', 'rgba(128,128,128,0.35)'),
    gold: colour('--vscode-charts-yellow', '#cca700'),
    pred: colour('--vscode-charts-blue', '#3794ff'),
    line: colour('--vscode-charts-foreground', colour('--vscode-foreground', '#888')),
    font: colour('--vscode-font-family', 'sans-serif'),
  };
}

/** A chart on the page: its canvas, how to make its configuration in given colours, and the chart drawn. */
interface ChartEntry {
  canvas: HTMLCanvasElement;
  make: (colours: ThemeColours) => ChartConfiguration;
  chart: ChartInstance | null;
}

let charts: ChartEntry[] = [];

/** A canvas drawn once it is in the page, and again when the theme changes. */
function chartBox(label: string, make: ChartEntry['make'], className = 'chart'): HTMLDivElement {
  const canvas = h('canvas', { role: 'img', 'aria-label': label });
  const entry: ChartEntry = { canvas, make, chart: null };
  charts.push(entry);
  requestAnimationFrame(() => {
    if (entry.canvas.isConnected) draw(entry);
    else charts = charts.filter((other) => other !== entry); // replaced before it was ever drawn
    // Charts drawn and since taken off the page (the timed quantity switched) are let go.
    charts = charts.filter((other) => !other.chart || other.canvas.isConnected || (other.chart.destroy(), false));
  });
  return h('div', { className }, canvas);
}

function draw(entry: ChartEntry): void {
  if (!entry.canvas.isConnected) return;
  entry.chart?.destroy();
  const colours = themeColours();
  entry.chart = new Chart(entry.canvas, themed(entry.make(colours), colours));
}

/** The theme's colours on every part of a chart, explicitly (Chart.js caches what it read from its defaults). */
function themed(config: ChartConfiguration, c: ThemeColours): ChartConfiguration {
  // The options as plain records: every chart type has these parts, typed differently.
  type Part = Record<string, Record<string, unknown> | undefined>;
  const options = (config.options ??= {}) as Record<string, unknown> & { scales?: Record<string, Part>; plugins?: Record<string, Part> };
  options.color = c.foreground;
  options.borderColor = c.grid;
  options.font = { ...(options.font ?? {}), family: c.font };
  for (const scale of Object.values(options.scales ?? {})) {
    scale.ticks = { ...(scale.ticks ?? {}), color: c.foreground };
    if (scale.title) scale.title.color = c.foreground;
    scale.grid = { ...(scale.grid ?? {}), color: c.grid };
    scale.border = { ...(scale.border ?? {}), color: c.grid };
  }
  options.plugins = options.plugins ?? {};
  const legend = options.plugins.legend ?? {};
  options.plugins.legend = { ...legend, labels: { ...((legend.labels as object | undefined) ?? {}), color: c.foreground } };
  return config;
}

export function clearCharts(): void {
  for (const entry of charts) entry.chart?.destroy();
  charts = [];
}

// VS Code sets the theme's colours on <html> and its kind on <body>, not necessarily together: redraw once both settled.
let redraw = 0;
const themeChanged = () => {
  cancelAnimationFrame(redraw);
  redraw = requestAnimationFrame(() => charts.forEach(draw));
};
new MutationObserver(themeChanged).observe(document.body, { attributes: true, attributeFilter: ['class'] });
new MutationObserver(themeChanged).observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });

/** Labels a log axis at 1, 2 and 5 times each power of ten only (Chart.js labels every minor tick otherwise). */
function logTick(value: number | string): string {
  const v = Number(value);
  const leading = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
  return [1, 2, 5].some((d) => Math.abs(leading - d) < 1e-6) ? milliseconds(v) : '';
}

function samplesChart(timing: TimingSummary): HTMLDivElement {
  const medians = `gold median ${milliseconds(timing.goldMs)}, prediction median ${milliseconds(timing.predMs)}`;
  const label = `Milliseconds per execution, ${quantityText(timing)}: ${medians}`;
  const points = (samples: readonly number[]) => samples.map((y, x) => ({ x: x + 1, y }));
  return chartBox(label, (c) => ({
    type: 'scatter',
    data: {
      datasets: [
        { label: 'gold', data: points(timing.goldSamples), backgroundColor: c.gold, borderColor: c.gold, pointRadius: 2.5 },
        {
          label: 'prediction',
          data: points(timing.predSamples),
          backgroundColor: c.pred,
          borderColor: c.pred,
          pointRadius: 2.5,
          pointStyle: 'rectRot',
        },
      ],
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: 'round (gold and prediction run alternately)' }, ticks: { precision: 0 } },
        // A log axis: one stalled execution ten times the rest must not flatten every other point to the floor.
        y: { type: 'logarithmic', title: { display: true, text: 'ms per execution (log scale)' }, ticks: { callback: logTick } },
      },
    },
  }));
}

/** The timing samples of one timed quantity, with a picker between the two when both were timed. */
export function timingSection(result: ScoreResult): Child[] | null {
  if (result.same_program) {
    return [h('h2', {}, 'Timing'), h('p', { className: 'same-program-note' }, icon('pass'), ` ${SAME_PROGRAM_TEXT}.`)];
  }
  const timings = [result.timings.ves, result.timings.rves].filter((t): t is TimingSummary =>
    Boolean(t && (t.goldSamples?.length || t.predSamples?.length)),
  );
  if (!timings.length) return null;
  const slot = h('div', {});
  const showTiming = (timing: TimingSummary) => {
    slot.replaceChildren(
      samplesChart(timing),
      h(
        'p',
        { className: 'muted' },
        `${quantityText(timing)}: median gold ${milliseconds(timing.goldMs)} ms, prediction ${milliseconds(timing.predMs)} ms`,
        timing.note ? ` · ${plainText(timing.note)}` : '',
      ),
    );
  };
  showTiming(timings[0]);
  const pick = (event: Event) => showTiming(timings.find((t) => t.quantity === selectedValue(event)) ?? timings[0]);
  const picker =
    timings.length > 1
      ? h(
          'div',
          { className: 'picker' },
          h('label', { for: 'quantity' }, 'timed quantity'),
          h(
            'vscode-single-select',
            { id: 'quantity', onchange: pick },
            timings.map((t) => h('vscode-option', { value: t.quantity }, quantityText(t))),
          ),
        )
      : null;
  return [h('h2', {}, 'Timing'), picker, slot];
}

/** Scale ticks at the given values only (a log axis otherwise labels 2, 3, 4...). */
const ticksAt = (values: readonly number[]) => (axis: Scale) => {
  axis.ticks = values.map((value) => ({ value }));
};
const NICE = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * Which quantity the growth chart times, tied to the card that shows it at ×1: scaled copies time every row (as
 * R-VES does), so the card to read beside it is the R-VES ratio, not VES's first-row ratio (which may say the opposite).
 */
function growthQuantityText(result: ScoreResult): string {
  const atOne = result.timings.rves ? ` (its card above: ${ratio(result.timings.rves.ratio)}× at ×1)` : '';
  const firstRow = result.timings.ves
    ? `; the ${QUANTITY_LABELS.firstRowRatio} times only up to the first row, which need not grow alike`
    : '';
  return `The chart plots the ${QUANTITY_LABELS.allRowsRatio}${atOne}: every row fetched, on each scaled copy${firstRow}.`;
}

/** The all-rows ratio at each data scale the pair was re-timed at, on log axes, with the line of equal speed. */
export function scaleSection(result: ScoreResult): Child[] | null {
  const byScale = result.time_ratio_by_scale ?? {};
  const points = Object.entries(byScale)
    .map(([factor, r]) => ({ x: Number(factor), y: r as number }))
    .filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y))
    .sort((a, b) => a.x - b.x);
  if (!points.length) return null;
  const xs = points.map((p) => p.x);
  const ys = [...points.map((p) => p.y), 1];
  // The y range from one "nice" value below the lowest ratio (or 1) to one above the highest: at least 3 ticks.
  const yMin = [...NICE].reverse().find((v) => v <= Math.min(...ys) / 1.15) ?? Math.min(...ys) / 2;
  const yMax = NICE.find((v) => v >= Math.max(...ys) * 1.15) ?? Math.max(...ys) * 2;
  const yTicks = NICE.filter((v) => v >= yMin && v <= yMax);
  // A little room either side of the first and last scale, so their points are not cut by the frame.
  const xMin = xs[0] / 1.4;
  const xMax = xs[xs.length - 1] * 1.4;
  const label = `${QUANTITY_LABELS.allRowsRatio} as the data grows: ${points.map((p) => `×${p.x}: ${ratio(p.y)}`).join(', ')}`;
  const chart = chartBox(
    label,
    (c) => ({
      type: 'line',
      data: {
        datasets: [
          {
            label: `${QUANTITY_LABELS.allRowsRatio}, gold ÷ prediction`,
            data: points,
            borderColor: c.pred,
            backgroundColor: c.pred,
            pointRadius: 4,
            tension: 0,
          },
          {
            label: 'equal speed (1)',
            data: [
              { x: xMin, y: 1 },
              { x: xMax, y: 1 },
            ],
            borderColor: c.muted,
            borderDash: [6, 4],
            borderWidth: 1,
            pointRadius: 0,
          },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: {
            type: 'logarithmic',
            min: xMin,
            max: xMax,
            title: { display: true, text: 'data scale (copies of the database)' },
            afterBuildTicks: ticksAt(xs),
            ticks: { callback: (v) => `×${v}` },
          },
          y: {
            type: 'logarithmic',
            min: yMin,
            max: yMax,
            title: { display: true, text: [QUANTITY_LABELS.allRowsRatio, 'above 1: prediction faster'] },
            afterBuildTicks: ticksAt(yTicks),
            ticks: { callback: (v) => `${v}×` },
          },
        },
        plugins: { tooltip: { callbacks: { label: (item) => `×${item.parsed.x}: ${ratio(item.parsed.y)}×` } } },
      },
    }),
    'chart scale-chart',
  );
  const missing = Object.entries(byScale)
    .filter(([, r]) => r === null)
    .map(([factor]) => `×${factor}`);
  return [
    h('h2', {}, 'Ratio as the data grows'),
    chart,
    result.growth ? h('p', { className: 'growth' }, plainText(result.growth)) : null,
    missing.length
      ? h('p', { className: 'muted' }, `not measured at ${missing.join(', ')}: the copy could not be built or the pair timed out there`)
      : null,
    h('p', { className: 'muted small quantity-note' }, growthQuantityText(result)),
  ];
}
