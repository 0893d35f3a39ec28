// Small SVG charts drawn at report time: the HTML report carries them inline, so it needs no script library and
// no network, and it reads the same with JavaScript off. Colours come from CSS classes (s0, s1, ...) that the
// page defines for light and dark schemes.

export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { top: 14, right: 24, bottom: 46, left: 52 };
/** About how wide one character of a tick label is, in the SVG's units. */
const TICK_CHAR_PX = 6.5;
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

const fixed = (n: number) => Number(n.toFixed(1));

export interface Series {
  label: string;
  values: (number | null)[];
}

function legend(labels: readonly string[]): string {
  if (labels.length < 2) return '';
  return `<div class="legend">${labels.map((label, i) => `<span><i class="swatch s${i % 6}"></i>${escapeHtml(label)}</span>`).join('')}</div>`;
}

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Grouped vertical bars: one group per category (difficulty, histogram bin), one bar per series (run). Each bar
 * has a tooltip (`<title>`) and `data-value`, so tests and screen readers can read the numbers.
 */
export function barChart(options: {
  id: string;
  title: string;
  categories: string[];
  series: Series[];
  yLabel: string;
  format?: (v: number) => string;
  yMax?: number;
  /** The axis reaches at least this far (scores ×100: 100, so every metric's chart has the same 0–100 scale). */
  yAtLeast?: number;
  xLabel?: string;
  slantLabels?: boolean;
}): string {
  const { categories, series } = options;
  const format = options.format ?? ((v: number) => v.toFixed(2));
  const values = series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const yMax = options.yMax ?? niceMax(Math.max(0, options.yAtLeast ?? 0, ...values));
  const y = (v: number) => MARGIN.top + PLOT_H - (Math.max(0, Math.min(v, yMax)) / yMax) * PLOT_H;
  const groupW = PLOT_W / Math.max(1, categories.length);
  const barW = Math.min(56, Math.max(2, (groupW * 0.8) / Math.max(1, series.length)));
  // Slanted labels hang below the axis by half their length (sin 30°): the figure grows to hold the longest.
  const longestLabel = Math.max(0, ...categories.map((c) => c.length)) * TICK_CHAR_PX;
  const height = HEIGHT + (options.slantLabels ? Math.max(0, Math.ceil(longestLabel / 2) - 30) : 0);
  const parts: string[] = [];
  for (let t = 0; t <= 4; t++) {
    const v = (yMax * t) / 4;
    parts.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/>`);
    parts.push(
      `<text class="tick" x="${MARGIN.left - 6}" y="${fixed(y(v) + 4)}" text-anchor="end">${escapeHtml(Number.isInteger(v) ? String(v) : format(v))}</text>`,
    );
  }
  categories.forEach((category, c) => {
    const x0 = MARGIN.left + c * groupW + (groupW - barW * series.length) / 2;
    series.forEach((s, i) => {
      const v = s.values[c];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      const top = y(v);
      parts.push(
        `<rect class="bar s${i % 6}" data-series="${escapeHtml(s.label)}" data-category="${escapeHtml(category)}" data-value="${v}" x="${fixed(x0 + i * barW)}" y="${fixed(top)}" width="${fixed(barW - 1)}" height="${fixed(MARGIN.top + PLOT_H - top)}"><title>${escapeHtml(`${s.label} · ${category}: ${format(v)}`)}</title></rect>`,
      );
    });
    const cx = fixed(MARGIN.left + c * groupW + groupW / 2);
    const cy = HEIGHT - MARGIN.bottom + 16;
    parts.push(
      options.slantLabels
        ? `<text class="tick" x="${cx}" y="${cy - 4}" text-anchor="end" transform="rotate(-30 ${cx} ${cy - 4})">${escapeHtml(category)}</text>`
        : `<text class="tick" x="${cx}" y="${cy}" text-anchor="middle">${escapeHtml(category)}</text>`,
    );
  });
  parts.push(
    `<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + PLOT_H}" y2="${MARGIN.top + PLOT_H}"/>`,
  );
  if (options.xLabel)
    parts.push(
      `<text class="label" x="${MARGIN.left + PLOT_W / 2}" y="${height - 4}" text-anchor="middle">${escapeHtml(options.xLabel)}</text>`,
    );
  parts.push(
    `<text class="label" x="14" y="${MARGIN.top + PLOT_H / 2}" transform="rotate(-90 14 ${MARGIN.top + PLOT_H / 2})" text-anchor="middle">${escapeHtml(options.yLabel)}</text>`,
  );
  return `<figure class="chart" id="${escapeHtml(options.id)}"><figcaption>${escapeHtml(options.title)}</figcaption><svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(options.title)}">${parts.join('')}</svg>${legend(series.map((s) => s.label))}</figure>`;
}

/** Histogram bins of log2(ratio), from 1/64 to 64 (outer bins collect everything beyond). */
export const RATIO_BINS = [-Infinity, -5, -4, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4, 5, Infinity];

function ratioLabel(log2: number): string {
  const v = 2 ** log2;
  return v >= 1 ? `${Number(v.toFixed(2))}` : `1/${Number((1 / v).toFixed(2))}`;
}

const widthText = (log2Width: number) => (log2Width === 0.5 ? '×√2' : `×${Number((2 ** log2Width).toFixed(2))}`);

/** What the bins are, read from RATIO_BINS: "×2 wide from 1/32 to 1/2, ×√2 wide from 1/2 to 2, …; open below 1/32 and from 32". */
export function ratioBinsText(): string {
  const edges = RATIO_BINS.slice(1, -1);
  const stretches: string[] = [];
  for (let i = 1; i < edges.length;) {
    const width = edges[i] - edges[i - 1];
    let j = i;
    while (j + 1 < edges.length && edges[j + 1] - edges[j] === width) j++;
    stretches.push(`${widthText(width)} wide from ${ratioLabel(edges[i - 1])} to ${ratioLabel(edges[j])}`);
    i = j + 1;
  }
  return `bins ${stretches.join(', ')}; open below ${ratioLabel(edges[0])} and from ${ratioLabel(edges[edges.length - 1])}`;
}

/** Counts of time ratios per log-scale bin, and the bins' labels. */
export function ratioHistogram(ratios: readonly number[]): { labels: string[]; counts: number[] } {
  const labels: string[] = [];
  const counts: number[] = [];
  for (let b = 0; b < RATIO_BINS.length - 1; b++) {
    const [lo, hi] = [RATIO_BINS[b], RATIO_BINS[b + 1]];
    labels.push(lo === -Infinity ? `<${ratioLabel(hi)}` : hi === Infinity ? `≥${ratioLabel(lo)}` : `${ratioLabel(lo)}–${ratioLabel(hi)}`);
    counts.push(ratios.filter((r) => r > 0 && Math.log2(r) >= lo && Math.log2(r) < hi).length);
  }
  return { labels, counts };
}

export interface ScatterSeries {
  label: string;
  /** A CSS class for the points' colour (s0..s5, or `gold`). */
  className: string;
  points: { x: number; y: number; title: string; key?: string }[];
}

/** Log-log scatter (both axes log10): plan cost against measured milliseconds. Non-positive values are left out. */
export function logScatter(options: {
  id: string;
  title: string;
  series: ScatterSeries[];
  xLabel: string;
  yLabel: string;
  note?: string;
}): string {
  const all = options.series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0);
  const parts: string[] = [];
  if (all.length === 0) {
    return `<figure class="chart" id="${escapeHtml(options.id)}"><figcaption>${escapeHtml(options.title)}</figcaption><p class="muted">Nothing to draw: no question has both a plan cost and a measured time.</p></figure>`;
  }
  const lx = all.map((p) => Math.log10(p.x));
  const ly = all.map((p) => Math.log10(p.y));
  const [x0, x1] = [Math.floor(Math.min(...lx)), Math.ceil(Math.max(...lx)) || 1];
  const [y0, y1] = [Math.floor(Math.min(...ly)), Math.ceil(Math.max(...ly))];
  const xSpan = Math.max(1, x1 - x0);
  const ySpan = Math.max(1, y1 - y0);
  const px = (v: number) => MARGIN.left + ((Math.log10(v) - x0) / xSpan) * PLOT_W;
  const py = (v: number) => MARGIN.top + PLOT_H - ((Math.log10(v) - y0) / ySpan) * PLOT_H;
  const power = (e: number) => (e >= 0 && e <= 4 ? String(10 ** e) : `1e${e}`);
  for (let e = x0; e <= x0 + xSpan; e++) {
    const x = fixed(MARGIN.left + ((e - x0) / xSpan) * PLOT_W);
    parts.push(
      `<line class="grid" x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${MARGIN.top + PLOT_H}"/><text class="tick" x="${x}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${power(e)}</text>`,
    );
  }
  for (let e = y0; e <= y0 + ySpan; e++) {
    const y = fixed(MARGIN.top + PLOT_H - ((e - y0) / ySpan) * PLOT_H);
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}"/><text class="tick" x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${e >= -3 && e <= 3 ? String(Number((10 ** e).toFixed(3))) : `1e${e}`}</text>`,
    );
  }
  for (const s of options.series) {
    for (const p of s.points) {
      if (!(p.x > 0 && p.y > 0)) continue;
      parts.push(
        `<circle class="dot ${s.className}" cx="${fixed(px(p.x))}" cy="${fixed(py(p.y))}" r="3.2"${p.key ? ` data-key="${escapeHtml(p.key)}"` : ''}><title>${escapeHtml(p.title)}</title></circle>`,
      );
    }
  }
  parts.push(
    `<text class="label" x="${MARGIN.left + PLOT_W / 2}" y="${HEIGHT - 8}" text-anchor="middle">${escapeHtml(options.xLabel)}</text>`,
  );
  parts.push(
    `<text class="label" x="14" y="${MARGIN.top + PLOT_H / 2}" transform="rotate(-90 14 ${MARGIN.top + PLOT_H / 2})" text-anchor="middle">${escapeHtml(options.yLabel)}</text>`,
  );
  const keys = options.series.map((s) => `<span><i class="swatch ${s.className}"></i>${escapeHtml(s.label)}</span>`).join('');
  return `<figure class="chart" id="${escapeHtml(options.id)}"><figcaption>${escapeHtml(options.title)}</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(options.title)}">${parts.join('')}</svg><div class="legend">${keys}</div>${options.note ? `<p class="muted small">${escapeHtml(options.note)}</p>` : ''}</figure>`;
}
