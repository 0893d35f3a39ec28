// The Score panel: outcome, EX and Soft-F1; the time ratio of both timed quantities (VES's first row, R-VES's
// every row) with the interval a repeat run lands in; the R-VES reward with its bucket probabilities; the timing
// samples; the ratio as the data grows; the result difference; and both plans side by side.
// Also both SQLs (formatted, highlighted), the first rows of both results with their column names, and why
// the scores are what they are. Messages from the extension (ScorePanelMessage in src/shared/webviewMessages.ts):
// running (a new score: the panel is replaced), rerunning (more iterations: the shown numbers stay until the new
// ones arrive), result, cancelled and error (with `rerun` when a re-run ended).
const OUTCOME_TEXT = {
  correct: 'correct', mismatch: 'mismatch', prediction_error: 'prediction error', gold_error: 'gold error',
  timeout: 'timeout', refused: 'refused', skipped: 'skipped',
};
/** The ratio range of each R-VES reward bucket (mini_dev's thresholds on t_gold / t_pred). */
const BUCKET_RANGE = { 1.25: 'ratio ≥ 2', 1: '1 ≤ ratio < 2', 0.75: '0.5 ≤ ratio < 1', 0.5: '0.25 ≤ ratio < 0.5', 0.25: 'ratio < 0.25' };
const QUANTITY_TEXT = { 'first-row': 'first row (VES)', full: 'all rows (R-VES)' };
const SAME_PROGRAM_TEXT = 'Same program as gold: identical work, ratio 1 by construction, not timed';

let current = null; // the result on screen
let context = null; // what it scored: sent back with "rerun" (a restored panel re-runs without the extension remembering)
let charts = []; // { canvas, make, chart } to redraw when the theme changes
let ticker;

/** A ratio with as many digits as it needs: 0.93, 12.4, 250. */
function ratio(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}
function percent(p) {
  if (p > 0 && p < 0.01) return '< 1 %';
  if (p < 1 && p > 0.99) return '> 99 %';
  return `${Math.round(p * 100)} %`;
}
function ms(n) {
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3);
}

// ---- cards ----------------------------------------------------------------------------------------------

/** As core's speedVerdict (timing/verdict.ts): a claim needs the whole repeat interval past 1 and at least 10 %. */
const MEANINGFUL_RATIO = 1.1;
function verdict(timing) {
  if (timing.low > 1 && timing.ratio >= MEANINGFUL_RATIO) return h('span', { className: 'diff-good' }, 'prediction faster');
  if (timing.high < 1 && timing.ratio <= 1 / MEANINGFUL_RATIO) return h('span', { className: 'diff-bad' }, 'gold faster');
  return 'no measurable difference';
}

function intervalText(timing) {
  return `a repeat run: ${ratio(timing.low)}–${ratio(timing.high)}×`;
}

function ratioCard(label, timing, previous) {
  const counts = [timing.blocks ? `${timing.blocks} blocks` : null, `${timing.runs} runs`].filter(Boolean).join(' · ');
  return h('div', { className: 'card', title: 't_gold / t_pred: above 1, the prediction is faster. The interval holds 95 % of the ratios a repeat run reports.' },
    h('div', { className: 'label' }, label),
    h('div', { className: 'value' }, `${ratio(timing.ratio)}×`),
    h('div', { className: 'detail interval' }, intervalText(timing), h('span', { className: 'muted' }, ' (95 %)')),
    h('div', { className: 'detail' }, counts),
    h('div', { className: 'detail' }, verdict(timing)),
    previous ? h('div', { className: 'detail previous' }, `before: ${ratio(previous.ratio)}× (${ratio(previous.low)}–${ratio(previous.high)}×)`) : null);
}

function fill(p) {
  const bar = h('span', { className: 'bucket-fill' });
  bar.style.width = `${Math.max(0, Math.min(1, p)) * 100}%`; // through the CSSOM: the CSP forbids style attributes
  return bar;
}

function bucketBars(probabilities) {
  const buckets = Object.entries(probabilities).map(([reward, p]) => ({ reward, p })).sort((a, b) => Number(b.reward) - Number(a.reward));
  return h('div', { className: 'buckets', role: 'list', 'aria-label': 'probability that a repeat run lands in each reward bucket' },
    buckets.map(({ reward, p }) => h('div', { className: 'bucket', role: 'listitem', title: BUCKET_RANGE[reward] ?? '' },
      h('span', { className: 'bucket-reward' }, reward),
      h('span', { className: 'bucket-bar', 'aria-hidden': 'true' }, fill(p)),
      h('span', { className: 'bucket-p' }, percent(p)))));
}

function rewardCard(result) {
  if (result.sameProgram) return card('R-VES reward', String(result.rvesReward ?? 1), 'ratio 1 by construction');
  const probabilities = result.rvesBucketProbabilities;
  const reward = result.rvesReward;
  const detail = [h('div', {}, BUCKET_RANGE[reward] ? `bucket ${BUCKET_RANGE[reward]}` : '')];
  if (result.rvesUncertain && probabilities) {
    detail.push(h('div', {}, 'near a bucket edge: a repeat run lands in'), bucketBars(probabilities),
      h('div', { className: 'expected' }, `→ expected reward ${fmt(result.rvesExpectedReward)}`));
  } else if (result.rvesUncertain) {
    detail.push(h('div', {}, 'the interval crosses a bucket edge'));
  } else if (probabilities && probabilities[String(reward)] !== undefined) {
    detail.push(h('div', {}, `settled: ${percent(probabilities[String(reward)])} of repeat runs`));
  } else {
    detail.push(h('div', {}, 'bucket settled'));
  }
  return h('div', { className: 'card reward' }, h('div', { className: 'label' }, 'R-VES reward'), h('div', { className: 'value' }, reward === null || reward === undefined ? '–' : String(reward)), h('div', { className: 'detail' }, detail));
}

function cards(result, partial, previous) {
  const list = [
    card('outcome', OUTCOME_TEXT[result.outcome] ?? plain(result.outcome), result.error ? plain(result.error) : '', `outcome-${result.outcome}`),
    card('EX', String(result.ex)),
    card('Soft-F1', fmt(result.f1, 3)),
  ];
  const t = result.timing;
  const rt = result.rvesTiming;
  if (result.sameProgram) {
    list.push(h('div', { className: 'card same-program' }, h('div', { className: 'label' }, 'same program'), h('div', { className: 'value' }, '1×'),
      h('div', { className: 'detail' }, 'as gold: identical work,'), h('div', { className: 'detail' }, 'ratio 1 by construction, not timed')));
    list.push(rewardCard(result));
  } else if (t || rt) {
    if (t) list.push(ratioCard('time ratio (VES, first row)', t, previous?.timing));
    if (rt) list.push(ratioCard('R-VES ratio (all rows)', rt, previous?.rvesTiming));
    if (rt || result.rvesReward !== null) list.push(rewardCard(result));
    const m = t ?? rt;
    list.push(card('median time', `${ms(m.predMs)} ms`, `gold ${ms(m.goldMs)} ms · ${t ? 'first row' : 'all rows'}`));
  } else if (partial) {
    list.push(card('time ratio', '…', 'timing runs in progress'));
  }
  return list;
}

// ---- charts ---------------------------------------------------------------------------------------------

function themeColours() {
  const style = getComputedStyle(document.body);
  const colour = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
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

/** A canvas drawn once it is in the page, and again when the theme changes. */
function chartBox(label, make, className = 'chart') {
  const canvas = h('canvas', { role: 'img', 'aria-label': label });
  const entry = { canvas, make, chart: null };
  charts.push(entry);
  requestAnimationFrame(() => {
    if (entry.canvas.isConnected) draw(entry);
    else charts = charts.filter((other) => other !== entry); // replaced before it was ever drawn
    // Charts drawn and since taken off the page (the timed quantity switched) are let go.
    charts = charts.filter((other) => !other.chart || other.canvas.isConnected || (other.chart.destroy(), false));
  });
  return h('div', { className }, canvas);
}
function draw(entry) {
  if (!entry.canvas.isConnected) return;
  entry.chart?.destroy();
  const c = themeColours();
  entry.chart = new Chart(entry.canvas, themed(entry.make(c), c));
}
/** The theme's colours on every part of a chart, explicitly (Chart.js caches what it read from its defaults). */
function themed(config, c) {
  const options = config.options;
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
  options.plugins.legend = { ...(options.plugins.legend ?? {}), labels: { ...(options.plugins.legend?.labels ?? {}), color: c.foreground } };
  return config;
}
function clearCharts() {
  for (const entry of charts) entry.chart?.destroy();
  charts = [];
}
// VS Code sets the theme's colours on <html> and its kind on <body>, not necessarily together: redraw once both settled.
let redraw;
const themeChanged = () => {
  cancelAnimationFrame(redraw);
  redraw = requestAnimationFrame(() => charts.forEach(draw));
};
new MutationObserver(themeChanged).observe(document.body, { attributes: true, attributeFilter: ['class'] });
new MutationObserver(themeChanged).observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });

function samplesChart(timing) {
  const label = `Milliseconds per execution, ${QUANTITY_TEXT[timing.quantity] ?? timing.quantity}: gold median ${ms(timing.goldMs)}, prediction median ${ms(timing.predMs)}`;
  return chartBox(label, (c) => ({
    type: 'scatter',
    data: {
      datasets: [
        { label: 'gold', data: timing.goldSamples.map((y, x) => ({ x: x + 1, y })), backgroundColor: c.gold, borderColor: c.gold, pointRadius: 2.5 },
        { label: 'prediction', data: timing.predSamples.map((y, x) => ({ x: x + 1, y })), backgroundColor: c.pred, borderColor: c.pred, pointRadius: 2.5, pointStyle: 'rectRot' },
      ],
    },
    options: {
      animation: false, maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: 'round (gold and prediction run alternately)' }, ticks: { precision: 0 } },
        y: { title: { display: true, text: 'ms per execution' }, beginAtZero: true },
      },
    },
  }));
}

function timingSection(result) {
  if (result.sameProgram) {
    return [h('h2', {}, 'Timing'), h('p', { className: 'same-program-note' }, icon('pass'), ` ${SAME_PROGRAM_TEXT}.`)];
  }
  const timings = [result.timing, result.rvesTiming].filter((t) => t && (t.goldSamples?.length || t.predSamples?.length));
  if (!timings.length) return null;
  const slot = h('div', {});
  const showTiming = (timing) => {
    slot.replaceChildren(samplesChart(timing), h('p', { className: 'muted' },
      `${QUANTITY_TEXT[timing.quantity] ?? timing.quantity}: median gold ${ms(timing.goldMs)} ms, prediction ${ms(timing.predMs)} ms`,
      timing.note ? ` · ${plain(timing.note)}` : ''));
  };
  showTiming(timings[0]);
  const picker = timings.length > 1
    ? h('div', { className: 'picker' }, h('label', { for: 'quantity' }, 'timed quantity'),
      h('vscode-single-select', { id: 'quantity', onchange: (e) => showTiming(timings.find((t) => t.quantity === e.target.value) ?? timings[0]) },
        timings.map((t) => h('vscode-option', { value: t.quantity }, QUANTITY_TEXT[t.quantity] ?? t.quantity))))
    : null;
  return [h('h2', {}, 'Timing'), picker, slot];
}

/** Scale ticks at the given values only (a log axis otherwise labels 2, 3, 4...). */
const ticksAt = (values) => (axis) => { axis.ticks = values.map((value) => ({ value })); };
const NICE = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

function scaleSection(result) {
  const byScale = result.timeRatioByScale;
  const points = Object.entries(byScale ?? {}).map(([factor, r]) => ({ x: Number(factor), y: r })).filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
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
  const label = `Time ratio of the prediction against gold as the data grows: ${points.map((p) => `×${p.x}: ${ratio(p.y)}`).join(', ')}`;
  const chart = chartBox(label, (c) => ({
    type: 'line',
    data: {
      datasets: [
        { label: 'time ratio (gold ÷ prediction)', data: points, borderColor: c.pred, backgroundColor: c.pred, pointRadius: 4, tension: 0 },
        { label: 'equal speed (1)', data: [{ x: xMin, y: 1 }, { x: xMax, y: 1 }], borderColor: c.muted, borderDash: [6, 4], borderWidth: 1, pointRadius: 0 },
      ],
    },
    options: {
      animation: false, maintainAspectRatio: false,
      scales: {
        x: { type: 'logarithmic', min: xMin, max: xMax, title: { display: true, text: 'data scale (copies of the database)' }, afterBuildTicks: ticksAt(xs), ticks: { callback: (v) => `×${v}` } },
        y: { type: 'logarithmic', min: yMin, max: yMax, title: { display: true, text: 'time ratio (above 1: prediction faster)' }, afterBuildTicks: ticksAt(yTicks), ticks: { callback: (v) => `${v}×` } },
      },
      plugins: { tooltip: { callbacks: { label: (item) => `×${item.parsed.x}: ${ratio(item.parsed.y)}×` } } },
    },
  }), 'chart scale-chart');
  const missing = Object.entries(byScale).filter(([, r]) => r === null).map(([factor]) => `×${factor}`);
  return [h('h2', {}, 'Ratio as the data grows'), chart, result.growth ? h('p', { className: 'growth' }, plain(result.growth)) : null,
    missing.length ? h('p', { className: 'muted' }, `not measured at ${missing.join(', ')}: the copy could not be built or the pair timed out there`) : null];
}

// ---- the rest -------------------------------------------------------------------------------------------

function rowsTable(rows) {
  return h('div', { className: 'scroll-box' }, h('table', { className: 'rows' }, h('tbody', {}, rows.map((row) => h('tr', {}, (Array.isArray(row) ? row : [row]).map(valueCell))))));
}
function differenceSection(difference) {
  const rows = (title, list) => (list.length ? [h('h3', {}, title), rowsTable(list)] : []);
  return [
    h('h2', {}, 'Result difference'),
    h('p', {}, `prediction returned ${difference.pred_rows} rows, gold ${difference.gold_rows}`),
    ...rows('gold rows the prediction lacks (first 5)', difference.missing),
    ...rows('predicted rows gold lacks (first 5)', difference.extra),
  ];
}

/** Why the scores are what they are (column counts, Soft-F1 below 1 for a correct result...). */
function explanationSection(result) {
  if (!result.explanations?.length) return null;
  return h('div', { className: 'explanations', role: 'note' }, result.explanations.map((text) => h('p', {}, icon('info'), ' ', plain(text))));
}

function sideBySide(left, right) {
  return h('div', { className: 'side-by-side' }, left, right);
}

function sqlSection(result) {
  return [h('h2', {}, 'SQL'), sideBySide(
    h('div', {}, h('h3', {}, 'gold'), sqlBlock(result.goldSql, 'gold SQL')),
    h('div', {}, h('h3', {}, 'prediction'), sqlBlock(result.predSql, 'predicted SQL')))];
}

function resultSection(result) {
  if (!result.goldPreview || !result.predPreview) return null;
  return [h('h2', {}, 'Results'), sideBySide(previewTable(result.goldPreview, 'gold'), previewTable(result.predPreview, 'prediction'))];
}

/** Something was timed: a re-run with more iterations can tighten it. */
const timed = (result) => !result.sameProgram && Boolean(result.timing || result.rvesTiming);

function stopTicker() {
  clearInterval(ticker);
  ticker = undefined;
}

/** The buttons and status line under the cards; `state` is idle, partial, rerunning, or a message after a re-run. */
function actions(state, message) {
  const bar = document.getElementById('actions');
  if (!bar || !current) return;
  stopTicker();
  const cancel = h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => vscodeApi.postMessage({ type: 'cancel' }) }, 'Cancel');
  const rerun = timed(current)
    ? h('vscode-button', { id: 'rerun', icon: 'debug-rerun', disabled: state === 'rerunning' || undefined, onclick: () => vscodeApi.postMessage({ type: 'rerun', context }) }, 'Re-run with more iterations')
    : null;
  if (state === 'partial') {
    bar.replaceChildren(h('vscode-progress-ring', { className: 'ring' }), h('span', { className: 'status' }, 'timing prediction and gold…'), cancel);
  } else if (state === 'rerunning') {
    const started = Date.now();
    const elapsed = h('span', { className: 'elapsed' }, '0 s');
    // The buttons, then a progress line under them (one line at any panel width).
    bar.replaceChildren(rerun, cancel,
      h('div', { className: 'progress-line', role: 'status' }, h('vscode-progress-ring', { className: 'ring', 'aria-label': 're-running' }),
        h('span', { className: 'status' }, 're-running with more iterations… ', elapsed)),
      h('div', { className: 'progress-line muted' }, 'the numbers shown are from the previous run until the new ones arrive'));
    ticker = setInterval(() => { elapsed.textContent = `${Math.round((Date.now() - started) / 1000)} s`; }, 1000);
  } else if (state === 'cancelled') {
    bar.replaceChildren(rerun, h('span', { className: 'status muted' }, 're-run cancelled: the numbers shown are from the previous run'));
  } else if (state === 'error') {
    bar.replaceChildren(rerun, h('span', { className: 'status error' }, `re-run failed: ${plain(message)}`));
  } else if (state === 'timing-cancelled') {
    bar.replaceChildren(h('span', { className: 'status muted' }, 'timing cancelled: EX and Soft-F1 above are final; no speed was measured'));
  } else if (state === 'timing-error') {
    bar.replaceChildren(h('span', { className: 'status error' }, `timing failed: ${plain(message)}; EX and Soft-F1 above are final`));
  } else {
    bar.replaceChildren(...[rerun].filter(Boolean));
  }
  document.getElementById('app').classList.toggle('stale', state === 'rerunning');
}

// ---- the Judge: does the prediction answer the question (a chat model, ROSE's Prover/Refuter) -----------
// Its own state: a judgement shows with the score of the same prediction (same question, same SQL), or alone.

const BRANCH_TEXT = {
  results_match: 'results match: the Refuter alone', results_differ: 'results differ: the Prover, then the Refuter if it passed',
  prediction_failed: 'the prediction failed: 0 without a call', no_prediction: 'no prediction: 0 without a call',
  gold_failed: 'the gold failed: the Prover alone', prover_only: 'the Prover alone, without the gold', flex: 'one gold-anchored call (FLEX)',
};
let judged = null; // { judgement, context }: the latest verdict
let judgeStatus = null; // { judging: model } | { failed: message, cancelled }

/** The judgement belongs to the score on screen: the same question and the same prediction. */
function judgementFits(result) {
  const j = judged?.judgement;
  return Boolean(j && result && String(j.question.questionId) === String(result.question.questionId) && j.predSql === result.predSql);
}

function judgeFlags(j) {
  const r = j.judge.refuter;
  const flags = [];
  if (r?.gold_correct === false) flags.push('the Refuter says the gold SQL looks wrong');
  if (r && r.ambiguity !== 'na') flags.push(`the Refuter finds an ${r.ambiguity}`);
  if (!flags.length) return null;
  return h('div', { className: 'judge-flags', role: 'note' }, flags.map((f) => h('p', {}, icon('warning'), ` ${f}`)),
    h('p', { className: 'muted small' }, 'for annotators: these flags never change the score'));
}

function field(label, value) {
  return value === undefined || value === null || value === '' ? null : [h('dt', {}, label), h('dd', {}, plain(value))];
}

function judgeVerdict(j) {
  const o = j.judge;
  const scoreText = o.score === 1 ? 'answers' : o.score === 0 ? 'does not answer' : 'no verdict';
  const scoreClass = o.score === 1 ? 'outcome-correct' : o.score === 0 ? 'outcome-mismatch' : 'outcome-gold_error';
  const tokens = `${o.usage.prompt_tokens.toLocaleString('en-US')} prompt + ${o.usage.completion_tokens.toLocaleString('en-US')} completion tokens`;
  const model = j.model.replace(/^[a-z-]+:/, '');
  const p = o.prover;
  const r = o.refuter;
  return [
    h('div', { className: 'row cards' },
      card('judge', o.score === null ? '–' : String(o.score), scoreText, scoreClass),
      card('method', o.method, BRANCH_TEXT[o.branch] ?? o.branch),
      card('model', model, `${o.calls} request${o.calls === 1 ? '' : 's'}${o.cached_calls ? ` (${o.cached_calls} from the cache)` : ''} · ${tokens}`)),
    o.error ? h('p', { className: 'error judge-error' }, icon('error'), ` no verdict: ${plain(o.error)}`) : null,
    judgeFlags(j),
    p ? h('div', { className: 'judge-role' }, h('h3', {}, 'Prover ', h('span', { className: p.verdict ? 'diff-good' : 'diff-bad' }, p.verdict ? 'passes' : 'fails'), h('span', { className: 'muted small' }, ' (judged without the gold)')),
      h('dl', {}, field('reason', p.reason), field('expected answer', p.expected_answer), field('the SQL', p.sql_description), field('in the result', p.result_evidence))) : null,
    r ? h('div', { className: 'judge-role' }, h('h3', {}, 'Refuter ', h('span', { className: r.overturn ? 'diff-bad' : 'diff-good' }, r.overturn ? 'overturns' : 'upholds'), h('span', { className: 'muted small' }, ' (with the gold as a noisy reference)')),
      h('dl', {}, field('judgement', r.judgement), field('ambiguity', r.ambiguity === 'na' ? 'none' : r.ambiguity), field('gold correct', r.gold_correct === null ? 'not said' : r.gold_correct ? 'yes' : 'no'))) : null,
    o.flex ? h('div', { className: 'judge-role' }, h('h3', {}, 'FLEX ', h('span', { className: o.flex.correct ? 'diff-good' : 'diff-bad' }, o.flex.correct ? 'correct' : 'incorrect')), h('dl', {}, field('reason', o.flex.reason))) : null,
    o.notes?.length ? h('ul', { className: 'notes muted' }, o.notes.map((n) => h('li', {}, plain(n)))) : null,
  ];
}

/** The Judge section's content: running, failed, the verdict, or a button to ask for one. */
function judgeContent(fits) {
  const title = h('h2', {}, 'Judge ', h('span', { className: 'muted small' }, '(does the prediction answer the question? a chat model, ROSE\'s Prover and Refuter)'));
  if (judgeStatus?.judging) {
    return [title, h('div', { className: 'actions', role: 'status' }, h('vscode-progress-ring', { className: 'ring', 'aria-label': 'judging' }),
      h('span', { className: 'status' }, `asking ${plain(judgeStatus.judging)}…`),
      h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => vscodeApi.postMessage({ type: 'cancel-judge' }) }, 'Cancel'))];
  }
  const failure = judgeStatus?.failed ? h('p', { className: judgeStatus.cancelled ? 'muted' : 'error' }, judgeStatus.cancelled ? 'judgement cancelled' : `could not judge: ${plain(judgeStatus.failed)}`) : null;
  if (fits && judged) return [title, failure, judgeVerdict(judged.judgement)];
  if (!current) return [title, failure];
  return [title, failure, h('div', { className: 'actions' }, h('vscode-button', { id: 'judge', secondary: true, icon: 'law', onclick: () => vscodeApi.postMessage({ type: 'judge', context }) }, 'Judge'),
    h('span', { className: 'muted' }, 'with the model set in vesLens.judge (replies are cached: judging again is free)'))];
}

/** The Judge section's slot in a score view, filled now and on each judge message. */
function judgeSlot() {
  return h('section', { id: 'judge', 'aria-label': 'judge' }, judgeContent(judgementFits(current)));
}
function drawJudge() {
  const slot = document.getElementById('judge');
  if (slot) slot.replaceChildren(...judgeContent(current ? judgementFits(current) : Boolean(judged)).flat().filter(Boolean));
}

/** The question a panel shows: its id, database and difficulty, its text and evidence (a score and a judgement alike). */
function questionHeader(q) {
  return [
    h('h1', {}, `Question ${q.questionId} `, h('span', { className: 'muted' }, `${q.dbId} · ${q.difficulty || 'no difficulty'}`)),
    h('p', {}, plain(q.question)),
    q.evidence ? h('p', { className: 'muted' }, `Evidence: ${plain(q.evidence)}`) : null,
  ];
}

/** A judgement with no score of the same prediction on screen: the question, the verdict and both SQLs. */
function showJudgementAlone(j) {
  current = null;
  stopTicker();
  clearCharts();
  const q = j.question;
  render(
    questionHeader(q),
    h('section', { id: 'judge', 'aria-label': 'judge' }),
    sqlSection(j),
  );
  drawJudge();
}

/** The Judge section in view (it sits below the timing charts). */
const reveal = () => document.getElementById('judge')?.scrollIntoView({ block: 'start' });

/** Judge messages; true when `data` was one. */
function handleJudge(data, restored) {
  const holder = () => h('section', { id: 'judge', 'aria-label': 'judge' });
  if (data.type === 'judging') {
    judgeStatus = { judging: data.model };
    const shown = current ? context : judged?.context;
    if (!document.getElementById('judge') || JSON.stringify(data.context) !== JSON.stringify(shown)) {
      // Another prediction than the one on screen: the panel turns to this judgement.
      current = null;
      judged = null;
      stopTicker();
      clearCharts();
      render(h('h1', {}, 'Judging…'), holder());
    }
    drawJudge();
    if (!restored) reveal();
    return true;
  }
  if (data.type === 'judgement') {
    const j = data.judgement;
    const fitsShown = current && String(j.question.questionId) === String(current.question.questionId) && j.predSql === current.predSql;
    if (restored && current && !fitsShown) return true; // a restored panel: the saved judgement only over its own score
    judged = { judgement: j, context: data.context };
    judgeStatus = null;
    if (fitsShown) drawJudge();
    else showJudgementAlone(j);
    if (fitsShown && !restored) reveal();
    if (!restored) vscodeApi.setState({ ...(vscodeApi.getState() ?? {}), judgement: data });
    return true;
  }
  if (data.type === 'judge-failed') {
    judgeStatus = { failed: data.message, cancelled: data.cancelled };
    if (!document.getElementById('judge')) render(h('h1', {}, 'Judge'), holder());
    drawJudge();
    return true;
  }
  return false;
}

// ---- partial credit: SQLMorph's techniques (ScoreResult.techniques) ---------------------------------------
// Its own section: the score table (technique × EX/EXP/EXR/F1, errors as such), then one technique's details
// (picked): which predicted column matched which gold column, and how each row fared (exact, partial, none).

const TECHNIQUE_TEXT = {
  execution_accuracy: 'the same set of rows (BIRD\'s EX)',
  exact_column_and_exact_cell: 'columns matched by exact name; a row counts when all its matched cells are equal',
  exact_column_and_partial_cell: 'columns matched by exact name; rows left over pair greedily, each worth its share of equal cells',
  semantic_column_and_exact_cell: 'columns matched by meaning (embeddings, similarity above 0.7); a row counts when all its matched cells are equal',
  semantic_column_and_partial_cell: 'columns matched by meaning (embeddings); rows left over pair greedily by equal cells',
  no_column_and_partial_cell: 'column names ignored: each row a set of cell values, rows paired by Jaccard similarity',
  unified_column_and_semantic_row: 'each row one text over the union of column names, rows paired by the cosine similarity of their embeddings',
};
/** Whose details a new result shows first: the most telling technique that scored. */
const DETAIL_PREFERENCE = ['semantic_column_and_partial_cell', 'exact_column_and_partial_cell', 'unified_column_and_semantic_row', 'no_column_and_partial_cell', 'semantic_column_and_exact_cell', 'exact_column_and_exact_cell', 'execution_accuracy'];
const FATE = {
  exact: { icon: 'pass', label: 'exact' },
  partial: { icon: 'circle-large-outline', label: 'partial' },
  none: { icon: 'circle-slash', label: 'none' },
};
const TECHNIQUE_COLUMN_TEXT = { EX: 'the same set of rows (1) or not (0)', EXP: 'matched cells over predicted cells (precision)', EXR: 'matched cells over gold cells (recall)', F1: 'harmonic mean of EXP and EXR' };
let techniqueShown = null; // the technique whose details the person picked: kept across results while it is there

const isTechniqueError = (score) => Boolean(score && 'error' in score);

function techniqueScoreRow(t) {
  const name = h('th', { scope: 'row', title: TECHNIQUE_TEXT[t.name] ?? '' }, h('code', {}, t.name));
  if (isTechniqueError(t.score)) {
    return h('tr', { className: 'technique-error' }, name, h('td', { colspan: 4, className: 'error' }, icon('error'), ` ${plain(t.score.error)}`));
  }
  const value = (key) => (t.score[key] === undefined ? h('td', { className: 'num muted' }, '–') : h('td', { className: `num ${key === 'F1' ? 'f1' : ''}` }, key === 'EX' ? String(t.score.EX) : fmt(t.score[key], 3)));
  return h('tr', {}, name, ['EX', 'EXP', 'EXR', 'F1'].map(value));
}

function techniqueScoreTable(view) {
  return h('div', { className: 'scroll-box' }, h('table', { className: 'techniques', 'aria-label': 'SQLMorph technique scores' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'technique'), ['EX', 'EXP', 'EXR', 'F1'].map((k) => h('th', { scope: 'col', className: 'num', title: TECHNIQUE_COLUMN_TEXT[k] }, k)))),
    h('tbody', {}, view.techniques.map(techniqueScoreRow))));
}

/** What the embeddings, the penalty and the setup say, under the table. */
function techniqueSettingsLine(view) {
  const e = view.embeddings;
  const embeddings = e ? (e.provider === 'local' ? 'embeddings: the local model' : `embeddings: ${plain(e.model)} at ${plain(e.url)}`) : null;
  const penalty = view.penalizeExtraColumns ? 'predicted cells count every predicted column' : 'predicted cells count only the matched columns';
  return h('p', { className: 'muted small' }, [penalty, embeddings].filter(Boolean).join(' · '));
}

function techniqueSetup(setup) {
  if (!setup) return null;
  const button = setup.action === 'key'
    ? h('vscode-button', { secondary: true, icon: 'key', onclick: () => vscodeApi.postMessage({ type: 'setUpEmbeddings', action: 'key' }) }, 'Set Embeddings API Key')
    : h('vscode-button', { secondary: true, icon: 'settings-gear', onclick: () => vscodeApi.postMessage({ type: 'setUpEmbeddings', action: 'settings' }) }, 'Embeddings Settings');
  return h('div', { className: 'explanations technique-setup', role: 'note' }, h('p', {}, icon('info'), ' ', plain(setup.hint)), h('div', { className: 'actions' }, button));
}

const columnName = (table, i) => (table && table.columns[i] !== undefined ? plain(table.columns[i]) : `column ${i + 1}`);

/** Which predicted column went with which gold column, with the similarity; the columns left out on either side. */
function alignmentTable(view, t) {
  const pairs = t.columns ?? [];
  const rows = pairs.map((p) => h('tr', { className: p.matched ? 'aligned' : 'unaligned' },
    h('td', {}, columnName(view.predicted, p.predicted)), h('td', { 'aria-hidden': 'true', className: 'muted' }, icon('arrow-right')), h('td', {}, columnName(view.gold, p.gold)),
    h('td', { className: 'num' }, fmt(p.similarity, 3)),
    h('td', {}, p.matched ? [icon('pass'), ' matched'] : [icon('circle-slash'), ' below 0.7: not matched'])));
  // Columns in no pair at all (a pair below the threshold has its own row above).
  const inPair = (side, i) => pairs.some((p) => p[side] === i);
  (view.predicted?.columns ?? []).forEach((_, i) => {
    if (!inPair('predicted', i)) {
      rows.push(h('tr', { className: 'unaligned' }, h('td', {}, columnName(view.predicted, i)), h('td', { className: 'muted' }, ''), h('td', { className: 'muted' }, 'no gold column'), h('td', { className: 'num muted' }, '–'),
        h('td', {}, icon('circle-slash'), view.penalizeExtraColumns ? ' extra: its cells count against precision' : ' extra: not counted')));
    }
  });
  (view.gold?.columns ?? []).forEach((_, j) => {
    if (!inPair('gold', j)) {
      rows.push(h('tr', { className: 'unaligned' }, h('td', { className: 'muted' }, 'not predicted'), h('td', { className: 'muted' }, ''), h('td', {}, columnName(view.gold, j)), h('td', { className: 'num muted' }, '–'),
        h('td', {}, icon('circle-slash'), ' missed: its cells count against recall')));
    }
  });
  return h('div', { className: 'scroll-box' }, h('table', { className: 'alignment', 'aria-label': `column alignment of ${t.name}` },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'predicted column'), h('th', { scope: 'col', 'aria-label': 'matched to' }), h('th', { scope: 'col' }, 'gold column'), h('th', { scope: 'col', className: 'num' }, 'similarity'), h('th', { scope: 'col' }, ''))),
    h('tbody', {}, rows)));
}

/** How this technique matches columns, in words, and the alignment table where it has one. */
function alignmentSection(view, t) {
  const head = h('h3', {}, 'Column alignment');
  if (view.sameRows) return [head, h('p', { className: 'muted' }, 'The two results hold the same set of rows: every technique scores 1 without matching columns or rows (SQLMorph\'s check_ex).')];
  if (t.name === 'execution_accuracy') return [head, h('p', { className: 'muted' }, 'EX compares whole rows, column by column in order: no alignment.')];
  if (t.name === 'no_column_and_partial_cell') return [head, h('p', { className: 'muted' }, 'Column names are ignored: each row is compared as the set of its cell values.')];
  if (t.name === 'unified_column_and_semantic_row') {
    const union = [...new Set([...(view.predicted?.columns ?? []), ...(view.gold?.columns ?? [])])];
    return [head, h('p', { className: 'muted' }, `Each row becomes one text over the union of the column names (${union.map(plain).join(', ')}); a column gold has and the prediction lacks lowers every row's credit.`)];
  }
  if (!t.columns) return null;
  const note = t.columns.length === 0 && t.name.startsWith('exact_column') ? h('p', { className: 'muted' }, 'No column name in common: nothing is matched, every cell is missed.') : null;
  return [head, note, alignmentTable(view, t)];
}

function fateCell(fate, otherSide) {
  const f = FATE[fate.kind] ?? FATE.none;
  const partner = fate.partner === undefined ? '' : ` with ${otherSide} #${fate.partner + 1}`;
  const amount = fate.kind === 'partial' && fate.similarity !== undefined ? ` ${fmt(fate.similarity, 2)}` : '';
  return h('td', { className: `fate fate-${fate.kind}`, title: fate.kind === 'partial' ? 'share of the row matched (equal cells, Jaccard or cosine, as the technique measures it)' : '' }, icon(f.icon), ` ${f.label}${amount}${partner}`);
}

function countsText(counts) {
  return ['exact', 'partial', 'none'].map((k) => `${counts[k]} ${k}`).join(' · ');
}

/** The two sides of a technique's details: gold's rows and columns against the prediction's, and back. */
const SIDES = {
  gold: { title: 'gold', other: 'prediction', table: (v) => v.gold, otherTable: (v) => v.predicted, fates: (r) => r.gold, counts: (r) => r.goldCounts, mine: 'gold', theirs: 'predicted' },
  predicted: { title: 'prediction', other: 'gold', table: (v) => v.predicted, otherTable: (v) => v.gold, fates: (r) => r.predicted, counts: (r) => r.predictedCounts, mine: 'predicted', theirs: 'gold' },
};

/**
 * A partly matched row of a column-aligned technique: its cells on matched columns that differ from its partner's
 * (column → the partner's value). None when the partner is past the rows listed.
 */
function differingCells(view, t, side, row, fate) {
  const partner = fate.kind === 'partial' && t.columns && fate.partner !== undefined ? side.otherTable(view)?.rows[fate.partner] : undefined;
  const differs = new Map();
  if (!partner) return differs;
  for (const pair of t.columns.filter((p) => p.matched)) {
    const theirs = partner[pair[side.theirs]];
    if (JSON.stringify(row[pair[side.mine]]) !== JSON.stringify(theirs)) differs.set(pair[side.mine], theirs);
  }
  return differs;
}

/** One side's rows with their fate: the first rowLimit of them; the counts are of all rows. */
function fateTable(view, t, side) {
  const table = side.table(view);
  if (!table) return h('div', {});
  const fates = side.fates(t.rows);
  const shown = Math.min(fates.length, table.rows.length);
  const cut = table.rowCount > shown ? ` · first ${shown} of ${table.rowCount.toLocaleString('en-US')} listed` : '';
  const caption = `${side.title} · ${table.rowCount.toLocaleString('en-US')} row${table.rowCount === 1 ? '' : 's'}: ${countsText(side.counts(t.rows))}${cut}`;
  // Column-aligned techniques: a column matched to none on the other side is shown as such.
  const aligned = t.columns ? new Set(t.columns.filter((p) => p.matched).map((p) => p[side.mine])) : null;
  const header = table.columns.map((c, i) => (aligned && !aligned.has(i)
    ? h('th', { scope: 'col', className: 'unaligned', title: `matched to no ${side.other} column by this technique` }, plain(c))
    : h('th', { scope: 'col' }, plain(c))));
  const cells = (row, fate) => {
    const differs = differingCells(view, t, side, row, fate);
    return row.map((value, c) => {
      const cell = valueCell(value);
      if (differs.has(c)) {
        cell.classList.add('cell-differs');
        cell.title = `${side.other} #${fate.partner + 1} has ${differs.get(c) === null ? 'NULL' : plain(differs.get(c))}`;
      }
      return cell;
    });
  };
  const body = shown
    ? table.rows.slice(0, shown).map((row, i) => h('tr', { className: `fate-row fate-${fates[i].kind}` }, h('td', { className: 'num muted' }, String(i + 1)), fateCell(fates[i], side.other), cells(row, fates[i])))
    : [h('tr', {}, h('td', { className: 'muted', colspan: table.columns.length + 2 }, 'no rows'))];
  return h('div', { className: 'preview-block' }, h('div', { className: 'caption' }, caption),
    h('div', { className: 'scroll-box' }, h('table', { className: 'rows fates', 'aria-label': `${side.title} rows and how they matched` },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', className: 'num' }, '#'), h('th', { scope: 'col' }, 'match'), header)),
      h('tbody', {}, body))));
}

function rowFateSection(view, t) {
  if (!t.rows) return null;
  const tables = sideBySide(fateTable(view, t, SIDES.gold), fateTable(view, t, SIDES.predicted));
  const legend = [
    tables.querySelector('.cell-differs') ? 'Underlined: a cell of a partly matched row that differs from its partner\'s (hover for the other value).' : null,
    tables.querySelector('th.unaligned') ? 'Greyed column names: matched to no column of the other side.' : null,
  ].filter(Boolean);
  return [h('h3', {}, 'Rows'), tables, legend.length ? h('p', { className: 'muted small' }, legend.join(' ')) : null];
}

function techniqueDetails(view) {
  const usable = view.techniques.filter((t) => !isTechniqueError(t.score));
  if (!usable.length) return null;
  const chosen = usable.find((t) => t.name === techniqueShown) ?? DETAIL_PREFERENCE.map((n) => usable.find((t) => t.name === n)).find(Boolean) ?? usable[0];
  const slot = h('div', { id: 'technique-detail' });
  const draw = (t) => {
    slot.replaceChildren(...[h('p', { className: 'muted' }, TECHNIQUE_TEXT[t.name] ?? ''), alignmentSection(view, t), rowFateSection(view, t)].flat().filter(Boolean));
  };
  draw(chosen);
  const picker = usable.length > 1
    ? h('div', { className: 'picker' }, h('label', { for: 'technique' }, 'details of'),
      h('vscode-single-select', { id: 'technique', onchange: (e) => {
        const picked = usable.find((t) => t.name === e.target.value) ?? chosen;
        techniqueShown = picked.name;
        draw(picked);
      } },
        usable.map((t) => h('vscode-option', { value: t.name, selected: t.name === chosen.name || undefined }, t.name))))
    : h('p', { className: 'muted' }, `details of ${chosen.name}`);
  return [picker, slot];
}

/** The section: scores, setup hint, the query that could not be read, details, notes. */
function techniqueSection(result) {
  const view = result.techniques;
  if (!view) return null;
  return h('section', { id: 'techniques', 'aria-label': 'partial credit (SQLMorph)' },
    h('h2', {}, 'Partial credit (SQLMorph)'),
    techniqueScoreTable(view),
    techniqueSettingsLine(view),
    techniqueSetup(view.setup),
    view.failure ? h('p', { className: 'error' }, icon('error'), ` the ${view.failure.side} could not be read for the techniques: ${plain(view.failure.message)}`) : null,
    view.failure ? null : techniqueDetails(view),
    view.notes?.length ? h('ul', { className: 'notes muted' }, view.notes.map((n) => h('li', {}, plain(n)))) : null);
}

function show(result, partial, previous) {
  current = result;
  clearCharts();
  const q = result.question;
  render(
    questionHeader(q),
    h('div', { className: 'row cards' }, cards(result, partial, previous)),
    h('div', { className: 'actions', id: 'actions' }),
    timingSection(result),
    scaleSection(result),
    explanationSection(result),
    judgeSlot(),
    sqlSection(result),
    resultSection(result),
    result.difference ? differenceSection(result.difference) : null,
    techniqueSection(result),
    h('h2', {}, 'Plans'),
    planComparison(result.goldPlan, result.predPlan, result.planComparison),
    result.notes?.length ? h('ul', { className: 'notes muted' }, result.notes.map((n) => h('li', {}, plain(n)))) : null,
    h('p', { className: 'muted' }, `SQLite ${result.sqlite} · ${Math.round(result.elapsedMs)} ms`),
  );
  actions(partial ? 'partial' : 'idle');
}

let rerunning = false;
let before = null; // the result shown when the re-run started, to say what moved
function handle(data, restored) {
  if (handleJudge(data, restored)) return;
  if (data.type === 'running') {
    rerunning = false;
    current = null;
    stopTicker();
    clearCharts();
    render(h('h1', {}, 'Scoring…'), h('p', { className: 'muted' }, 'running prediction and gold on the database'), h('vscode-progress-ring'), h('div', { className: 'actions' }, h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => vscodeApi.postMessage({ type: 'cancel' }) }, 'Cancel')));
  }
  if (data.type === 'rerunning') {
    if (!current) return; // nothing on screen to keep: the extension sends `running` then
    rerunning = true;
    before = current;
    actions('rerunning');
  }
  if (data.type === 'result') {
    const previous = rerunning && !data.partial && timed(data.result) ? before : null;
    if (!data.partial) rerunning = false;
    context = data.context ?? context;
    // A restored panel shows the last result as it was; its timing, if it was running, is not coming.
    show(data.result, data.partial && !restored, previous);
    if (!restored) remember({ ...data, partial: false });
  }
  if (data.type === 'cancelled') {
    if (current) {
      // A re-run keeps the previous numbers; a first score keeps its correctness result (only the timing stopped).
      rerunning = false;
      if (!data.rerun) show(current, false); // no "timing runs in progress" card any more
      actions(data.rerun ? 'cancelled' : 'timing-cancelled');
    } else {
      stopTicker();
      clearCharts();
      render(h('h1', {}, 'Cancelled'), h('p', { className: 'muted' }, 'the queries were interrupted'));
    }
  }
  if (data.type === 'error') {
    if (current) {
      rerunning = false;
      if (!data.rerun) show(current, false);
      actions(data.rerun ? 'error' : 'timing-error', data.message);
    } else {
      stopTicker();
      clearCharts();
      render(h('h1', {}, 'Could not score'), h('p', { className: 'error' }, plain(data.message)));
    }
  }
}

window.addEventListener('message', ({ data }) => handle(data, false));
restore(handle);
const savedJudgement = vscodeApi.getState()?.judgement;
if (savedJudgement) handle(savedJudgement, true);
