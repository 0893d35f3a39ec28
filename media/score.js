// The Score panel: outcome, EX and Soft-F1, VES ratio with its interval and R-VES bucket, timing
// distributions, the result difference, and both plans side by side.
const OUTCOME_TEXT = {
  correct: 'correct', mismatch: 'mismatch', prediction_error: 'prediction error', gold_error: 'gold error',
  timeout: 'timeout', refused: 'refused', skipped: 'skipped',
};
let chart;

function timingChart(timing) {
  const canvas = h('canvas', { role: 'img', 'aria-label': `Milliseconds per execution: gold median ${fmt(timing.goldMs, 3)}, prediction median ${fmt(timing.predMs, 3)}` });
  requestAnimationFrame(() => {
    if (chart) chart.destroy();
    const style = getComputedStyle(document.body);
    const colour = (name) => style.getPropertyValue(name).trim() || undefined;
    chart = new Chart(canvas, {
      type: 'scatter',
      data: {
        datasets: [
          { label: 'gold', data: timing.goldSamples.map((y, x) => ({ x: x + 1, y })), backgroundColor: colour('--vscode-charts-yellow') },
          { label: 'prediction', data: timing.predSamples.map((y, x) => ({ x: x + 1, y })), backgroundColor: colour('--vscode-charts-blue') },
        ],
      },
      options: {
        animation: false, maintainAspectRatio: false,
        scales: { x: { title: { display: true, text: 'round' } }, y: { title: { display: true, text: 'ms per execution' }, beginAtZero: true } },
        plugins: { legend: { labels: { color: colour('--vscode-foreground') } } },
      },
    });
  });
  return h('div', { className: 'chart' }, canvas);
}

function differenceTable(difference) {
  const rows = (title, list) => list.length ? [h('h3', {}, title), h('pre', {}, list.map((r) => JSON.stringify(r)).join('\n'))] : [];
  return [
    h('p', {}, `prediction returned ${difference.pred_rows} rows, gold ${difference.gold_rows}`),
    ...rows('gold rows the prediction lacks (first 5)', difference.missing),
    ...rows('predicted rows gold lacks (first 5)', difference.extra),
  ];
}

function plan(title, summary) {
  return h('div', {}, h('h3', {}, `${title} · rule ${summary.rule} · ~${Math.round(summary.work).toLocaleString()} row visits`), h('pre', {}, summary.error ? `no plan: ${summary.error}` : summary.lines.join('\n')));
}

function show(result, partial) {
  const q = result.question;
  const t = result.timing;
  const cards = [
    card('outcome', OUTCOME_TEXT[result.outcome] ?? result.outcome, result.error ?? '', `outcome-${result.outcome}`),
    card('EX', String(result.ex)),
    card('Soft-F1', fmt(result.f1, 3)),
  ];
  if (t) {
    cards.push(card('time ratio', `${fmt(t.ratio)}×`, `95 % interval ${fmt(t.low)}–${fmt(t.high)} · ${t.runs} runs`));
    cards.push(card('R-VES reward', fmt(result.rvesReward), result.rvesUncertain ? 'interval crosses a bucket edge' : 'bucket settled'));
    cards.push(card('median time', `${fmt(t.predMs, 3)} ms`, `gold ${fmt(t.goldMs, 3)} ms`));
  } else if (partial) {
    cards.push(card('time ratio', '…', 'timing runs in progress'));
  }
  render(
    h('h1', {}, `Question ${q.questionId} `, h('span', { className: 'muted' }, `${q.dbId} · ${q.difficulty || 'no difficulty'}`)),
    h('p', {}, q.question),
    q.evidence ? h('p', { className: 'muted' }, `Evidence: ${q.evidence}`) : null,
    h('div', { className: 'row' }, cards),
    h('div', { className: 'actions' },
      h('vscode-button', { id: 'rerun', onclick: () => vscodeApi.postMessage({ type: 'rerun' }), disabled: partial || undefined }, icon('debug-rerun'), ' Re-run with more iterations'),
      partial ? h('vscode-button', { secondary: true, onclick: () => vscodeApi.postMessage({ type: 'cancel' }) }, icon('debug-stop'), ' Cancel') : null),
    t ? [h('h2', {}, 'Timing'), timingChart(t), t.note ? h('p', { className: 'muted' }, t.note) : null] : null,
    result.difference ? [h('h2', {}, 'Result difference'), ...differenceTable(result.difference)] : null,
    h('h2', {}, 'Plans'),
    h('div', { className: 'plans' }, plan('gold', result.goldPlan), plan('prediction', result.predPlan)),
    result.planDifferences.length
      ? h('ul', {}, result.planDifferences.map((d) => h('li', { className: d.direction > 0 ? 'diff-good' : d.direction < 0 ? 'diff-bad' : '' }, d.message)))
      : h('p', { className: 'muted' }, 'the two plans take the same steps'),
    h('p', { className: 'muted' }, `SQLite ${result.sqlite} · ${Math.round(result.elapsedMs)} ms`),
  );
}

window.addEventListener('message', ({ data }) => {
  if (data.type === 'running') render(h('h1', {}, 'Scoring…'), h('p', { className: 'muted' }, 'running prediction and gold on the database'), h('vscode-progress-ring'), h('div', { className: 'actions' }, h('vscode-button', { secondary: true, onclick: () => vscodeApi.postMessage({ type: 'cancel' }) }, icon('debug-stop'), ' Cancel')));
  if (data.type === 'result') show(data.result, data.partial);
  if (data.type === 'cancelled') render(h('h1', {}, 'Cancelled'), h('p', { className: 'muted' }, 'the queries were interrupted'));
  if (data.type === 'error') render(h('h1', {}, 'Could not score'), h('p', { className: 'error' }, data.message));
});
