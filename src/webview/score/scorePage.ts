// The Score panel's page: outcome, EX and Soft-F1; each metric's time ratio with its scope (VES: first row, R-VES:
// all rows) and, where this run's blocks measured one, the estimated interval of a repeat run; the R-VES reward with its bucket probabilities; the timing samples; the ratio as the data
// grows; why the scores are what they are; the Judge; both SQLs and the first rows of both results; the result
// difference; SQLMorph's partial credit; and both plans side by side.
// Messages (ScorePanelMessage in src/shared/webviewMessages.ts): running (a new score: the panel is replaced),
// rerunning (more iterations: the shown numbers stay until the new ones arrive), result, cancelled and error
// (with `rerun` when a re-run ended), and the Judge's own.
import { plainText } from '../../core/text/terminalText';
import type { ScoreResult } from '../../shared/protocol';
import type { ScorePanelMessage, ScorePanelRequest } from '../../shared/webviewMessages';
import { h, render } from '../common/dom';
import { panelPage } from '../common/vscodeApi';
import { planComparison } from '../plan/planComparison';
import { counterexampleSlot, handleCounterexample } from './counterexampleSection';
import { handleJudge, judgeSlot } from './judgeSection';
import { actions, cancelButton, stopTicker, timed } from './scoreActions';
import { scoreCards, scopeNote } from './scoreCards';
import { clearCharts, scaleSection, timingSection } from './scoreCharts';
import { differenceSection, explanationSection, questionHeader, resultSection, sqlSection } from './scoreSections';
import { channel, ScorePageState, shown } from './scoreState';
import { techniqueSection } from './techniqueSection';

const page = panelPage<ScorePanelMessage, ScorePanelRequest, ScorePageState>(handle, channel);

/** A re-run with more iterations is under way, and the result shown when it started (to say what moved). */
let rerunning = false;
let before: ScoreResult | null = null;

function show(result: ScoreResult, partial: boolean, previous: ScoreResult | null = null): void {
  shown.result = result;
  clearCharts();
  render(
    questionHeader(result.question),
    h('div', { className: 'row cards' }, scoreCards(result, partial, previous)),
    scopeNote(result),
    h('div', { className: 'actions', id: 'actions' }),
    timingSection(result),
    scaleSection(result),
    explanationSection(result),
    counterexampleSlot(result, partial),
    judgeSlot(),
    sqlSection(result),
    resultSection(result),
    result.difference ? differenceSection(result.difference) : null,
    techniqueSection(result),
    h('h2', {}, 'Plans'),
    planComparison(result.goldPlan, result.predPlan, result.planComparison),
    result.notes?.length
      ? h(
          'ul',
          { className: 'notes muted' },
          result.notes.map((n) => h('li', {}, plainText(n))),
        )
      : null,
    h('p', { className: 'muted' }, `${result.engine} · ${Math.round(result.elapsedMs)} ms`),
  );
  actions(partial ? 'partial' : 'idle');
}

/** Nothing of a score stays on screen: what replaces it is drawn next. */
function clearScore(): void {
  stopTicker();
  clearCharts();
}

function handle(data: ScorePanelMessage, restored: boolean): void {
  if (handleJudge(data, restored)) return;
  if (handleCounterexample(data, restored)) return;
  if (data.type === 'running') {
    rerunning = false;
    shown.result = null;
    clearScore();
    render(
      h('h1', {}, 'Scoring…'),
      h('p', { className: 'muted' }, 'running prediction and gold on the database'),
      h('vscode-progress-ring'),
      h('div', { className: 'actions' }, cancelButton()),
    );
  }
  if (data.type === 'rerunning') {
    if (!shown.result) return; // nothing on screen to keep: the extension sends `running` then
    rerunning = true;
    before = shown.result;
    actions('rerunning');
  }
  if (data.type === 'result') {
    const previous = rerunning && !data.partial && timed(data.result) ? before : null;
    if (!data.partial) rerunning = false;
    shown.context = data.context ?? shown.context;
    // A restored panel shows the last result as it was; its timing, if it was running, is not coming.
    show(data.result, data.partial && !restored, previous);
    if (!restored) page.remember({ ...data, partial: false });
  }
  if (data.type === 'cancelled') {
    if (shown.result) {
      // A re-run keeps the previous numbers; a first score keeps its correctness result (only the timing stopped).
      rerunning = false;
      if (!data.rerun) show(shown.result, false); // no "timing runs in progress" card any more
      actions(data.rerun ? 'cancelled' : 'timing-cancelled');
    } else {
      clearScore();
      render(h('h1', {}, 'Cancelled'), h('p', { className: 'muted' }, 'the queries were interrupted'));
    }
  }
  if (data.type === 'error') {
    if (shown.result) {
      rerunning = false;
      if (!data.rerun) show(shown.result, false);
      actions(data.rerun ? 'error' : 'timing-error', data.message);
    } else {
      clearScore();
      render(h('h1', {}, 'Could not score'), h('p', { className: 'error' }, plainText(data.message)));
    }
  }
}

// A saved search answer first, so the restored score draws it in its section.
const savedCounterexample = page.state().counterexample;
if (savedCounterexample) handle(savedCounterexample, true);
page.restore();
const savedJudgement = page.state().judgement;
if (savedJudgement) handle(savedJudgement, true);
