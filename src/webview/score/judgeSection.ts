// The Score panel's Judge section: does the prediction answer the question (a chat model, ROSE's Prover and
// Refuter). Its own state: a judgement shows with the score of the same prediction (same question, same SQL),
// or alone.
import type { JudgeBranch } from '../../core/judge/types';
import { plainText } from '../../core/text/terminalText';
import type { JudgeResult, ScoreResult } from '../../shared/protocol';
import type { ScoreContext, ScorePanelMessage } from '../../shared/webviewMessages';
import { Child, h, icon, nodes, render } from '../common/dom';
import { card } from '../common/elements';
import { stopTicker } from './scoreActions';
import { clearCharts } from './scoreCharts';
import { questionHeader, sqlSection } from './scoreSections';
import { channel, shown } from './scoreState';

const BRANCH_TEXT: Record<JudgeBranch, string> = {
  results_match: 'results match: the Refuter alone',
  results_differ: 'results differ: the Prover, then the Refuter if it passed',
  prediction_failed: 'the prediction failed: 0 without a call',
  no_prediction: 'no prediction: 0 without a call',
  gold_failed: 'the gold failed: the Prover alone',
  prover_only: 'the Prover alone, without the gold',
  flex: 'one gold-anchored call (FLEX)',
};

/** The latest verdict, and what it judged. */
let judged: { judgement: JudgeResult; context: ScoreContext } | null = null;
let judgeStatus: { judging: string } | { failed: string; cancelled: boolean } | null = null;

/** The judgement is of this result's prediction: the same question and the same SQL. */
function judges(judgement: JudgeResult, result: ScoreResult | null): boolean {
  return Boolean(
    result && String(judgement.question.questionId) === String(result.question.questionId) && judgement.predSql === result.predSql,
  );
}

function judgeFlags(j: JudgeResult): HTMLDivElement | null {
  const r = j.judge.refuter;
  const flags: string[] = [];
  if (r?.gold_correct === false) flags.push('the Refuter says the gold SQL looks wrong');
  if (r && r.ambiguity !== 'na') flags.push(`the Refuter finds an ${r.ambiguity}`);
  if (!flags.length) return null;
  return h(
    'div',
    { className: 'judge-flags', role: 'note' },
    flags.map((f) => h('p', {}, icon('warning'), ` ${f}`)),
    h('p', { className: 'muted small' }, 'for annotators: these flags never change the score'),
  );
}

function field(label: string, value: string | null | undefined): Child {
  return value === undefined || value === null || value === '' ? null : [h('dt', {}, label), h('dd', {}, plainText(value))];
}

function judgeVerdict(j: JudgeResult): Child[] {
  const o = j.judge;
  const scoreText = o.score === 1 ? 'answers' : o.score === 0 ? 'does not answer' : 'no verdict';
  const scoreClass = o.score === 1 ? 'outcome-correct' : o.score === 0 ? 'outcome-mismatch' : 'outcome-gold_error';
  const count = (n: number) => n.toLocaleString('en-US');
  const tokens = `${count(o.usage.prompt_tokens)} prompt + ${count(o.usage.completion_tokens)} completion tokens`;
  const requests = `${o.calls} request${o.calls === 1 ? '' : 's'}${o.cached_calls ? ` (${o.cached_calls} from the cache)` : ''}`;
  const model = j.model.replace(/^[a-z-]+:/, '');
  const p = o.prover;
  const r = o.refuter;
  const role = (name: string, verdict: Child, note: string | null, ...fields: Child[]) =>
    h(
      'div',
      { className: 'judge-role' },
      h('h3', {}, `${name} `, verdict, note ? h('span', { className: 'muted small' }, note) : null),
      h('dl', {}, fields),
    );
  const verdict = (good: boolean, text: string) => h('span', { className: good ? 'diff-good' : 'diff-bad' }, text);
  return [
    h(
      'div',
      { className: 'row cards' },
      card('judge', o.score === null ? '–' : String(o.score), scoreText, scoreClass),
      card('method', o.method, BRANCH_TEXT[o.branch] ?? o.branch),
      card('model', model, `${requests} · ${tokens}`),
    ),
    o.error ? h('p', { className: 'error judge-error' }, icon('error'), ` no verdict: ${plainText(o.error)}`) : null,
    judgeFlags(j),
    p
      ? role(
          'Prover',
          verdict(p.verdict, p.verdict ? 'passes' : 'fails'),
          ' (judged without the gold)',
          field('reason', p.reason),
          field('expected answer', p.expected_answer),
          field('the SQL', p.sql_description),
          field('in the result', p.result_evidence),
        )
      : null,
    r
      ? role(
          'Refuter',
          verdict(!r.overturn, r.overturn ? 'overturns' : 'upholds'),
          ' (with the gold as a noisy reference)',
          field('judgement', r.judgement),
          field('ambiguity', r.ambiguity === 'na' ? 'none' : r.ambiguity),
          field('gold correct', r.gold_correct === null ? 'not said' : r.gold_correct ? 'yes' : 'no'),
        )
      : null,
    o.flex ? role('FLEX', verdict(o.flex.correct, o.flex.correct ? 'correct' : 'incorrect'), null, field('reason', o.flex.reason)) : null,
    o.notes?.length
      ? h(
          'ul',
          { className: 'notes muted' },
          o.notes.map((n) => h('li', {}, plainText(n))),
        )
      : null,
  ];
}

/** The Judge section's content: running, failed, the verdict, or a button to ask for one. */
function judgeContent(fits: boolean): Child[] {
  const title = h(
    'h2',
    {},
    'Judge ',
    h('span', { className: 'muted small' }, "(does the prediction answer the question? a chat model, ROSE's Prover and Refuter)"),
  );
  if (judgeStatus && 'judging' in judgeStatus) {
    return [
      title,
      h(
        'div',
        { className: 'actions', role: 'status' },
        h('vscode-progress-ring', { className: 'ring', 'aria-label': 'judging' }),
        h('span', { className: 'status' }, `asking ${plainText(judgeStatus.judging)}…`),
        h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => channel.post({ type: 'cancel-judge' }) }, 'Cancel'),
      ),
    ];
  }
  const failure =
    judgeStatus && 'failed' in judgeStatus
      ? h(
          'p',
          { className: judgeStatus.cancelled ? 'muted' : 'error' },
          judgeStatus.cancelled ? 'judgement cancelled' : `could not judge: ${plainText(judgeStatus.failed)}`,
        )
      : null;
  if (fits && judged) return [title, failure, judgeVerdict(judged.judgement)];
  if (!shown.result) return [title, failure];
  const judge = h(
    'vscode-button',
    { id: 'judge', secondary: true, icon: 'law', onclick: () => shown.context && channel.post({ type: 'judge', context: shown.context }) },
    'Judge',
  );
  return [
    title,
    failure,
    h(
      'div',
      { className: 'actions' },
      judge,
      h('span', { className: 'muted' }, 'with the model set in vesLens.judge (replies are cached: judging again is free)'),
    ),
  ];
}

const judgeHolder = () => h('section', { id: 'judge', 'aria-label': 'judge' });

/** The Judge section's slot in a score view, filled now and on each judge message. */
export function judgeSlot(): HTMLElement {
  const slot = judgeHolder();
  slot.append(...nodes(judgeContent(Boolean(judged && judges(judged.judgement, shown.result)))));
  return slot;
}

function drawJudge(): void {
  const fits = shown.result ? Boolean(judged && judges(judged.judgement, shown.result)) : Boolean(judged);
  document.getElementById('judge')?.replaceChildren(...nodes(judgeContent(fits)));
}

/** A judgement with no score of the same prediction on screen: the question, the verdict and both SQLs. */
function showJudgementAlone(j: JudgeResult): void {
  shown.result = null;
  stopTicker();
  clearCharts();
  render(questionHeader(j.question), judgeHolder(), sqlSection(j));
  drawJudge();
}

/** The Judge section in view (it sits below the timing charts). */
const reveal = () => document.getElementById('judge')?.scrollIntoView({ block: 'start' });

/** Judge messages; true when `data` was one. */
export function handleJudge(data: ScorePanelMessage, restored: boolean): boolean {
  if (data.type === 'judging') {
    judgeStatus = { judging: data.model };
    const onScreen = shown.result ? shown.context : judged?.context;
    if (!document.getElementById('judge') || JSON.stringify(data.context) !== JSON.stringify(onScreen)) {
      // Another prediction than the one on screen: the panel turns to this judgement.
      shown.result = null;
      judged = null;
      stopTicker();
      clearCharts();
      render(h('h1', {}, 'Judging…'), judgeHolder());
    }
    drawJudge();
    if (!restored) reveal();
    return true;
  }
  if (data.type === 'judgement') {
    const j = data.judgement;
    const fitsShown = judges(j, shown.result);
    if (restored && shown.result && !fitsShown) return true; // a restored panel: the saved judgement only over its own score
    judged = { judgement: j, context: data.context };
    judgeStatus = null;
    if (fitsShown) drawJudge();
    else showJudgementAlone(j);
    if (fitsShown && !restored) reveal();
    if (!restored) channel.saveState({ judgement: data });
    return true;
  }
  if (data.type === 'judge-failed') {
    judgeStatus = { failed: data.message, cancelled: data.cancelled };
    if (!document.getElementById('judge')) render(h('h1', {}, 'Judge'), judgeHolder());
    drawJudge();
    return true;
  }
  return false;
}
