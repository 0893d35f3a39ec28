// The Optimize panel's page ("Find a faster equivalent", issue 28): the search's steps while it runs (with Cancel);
// then the verified rewrite diffed against the original, how far it is known to return the same rows (proven, by
// rule or tested: never "proven" for rows equal on this data), its speed-up with the repeat interval at each scale
// measured, the patterns used, Apply (or Copy for a read-only gold), and what was tried and rejected with the
// reason and, for rows that differ, the database that shows it. Index advice is a section of its own: a gold
// cannot add an index. Messages: OptimizePanelMessage in src/shared/webviewMessages.ts.
import { plainText } from '../../core/text/terminalText';
import type {
  IndexAdviceResult,
  IndexVerdictView,
  KeptRewrite,
  OptimizeResult,
  RejectedCandidate,
  SpeedMeasurement,
} from '../../shared/protocol';
import type { OptimizePanelMessage, OptimizePanelRequest, RewriteAction } from '../../shared/webviewMessages';
import { Child, h, icon, render } from '../common/dom';
import { card, sqlBlock } from '../common/elements';
import { counted } from '../common/format';
import { panelPage, RememberedMessage } from '../common/vscodeApi';
import { sqlDiff } from './optimizeDiff';

interface OptimizePageState extends RememberedMessage<OptimizePanelMessage> {
  advice?: IndexAdviceResult;
}

const page = panelPage<OptimizePanelMessage, OptimizePanelRequest, OptimizePageState>(handle);

/** The search running: its steps, newest last (the last few). */
let steps: string[] = [];
const STEPS_SHOWN = 8;

/** A speed-up as the CLI writes it: 412×, 33.0×, 1.42×. */
function times(x: number): string {
  return `${x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;
}

/** Milliseconds as a person reads a query's time: 2.41 s, 603 ms, 0.85 ms. */
function duration(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}

const PROOF_WORDS: Record<KeptRewrite['verification']['proof'], { title: string; icon: string; className: string; meaning: string }> = {
  proven: {
    title: 'proven',
    icon: 'verified-filled',
    className: 'good',
    meaning: 'equivalent on every database of this schema',
  },
  'by-rule': {
    title: 'by rule',
    icon: 'verified',
    className: 'info',
    meaning: "the rules' proof conditions hold here; equal on the data and on varied copies",
  },
  tested: {
    title: 'tested, not proven',
    icon: 'beaker',
    className: 'warn',
    meaning: 'equal on the data and on varied copies, nothing more',
  },
};

const REASON_WORDS: Record<RejectedCandidate['reason'], string> = {
  'changes-rows': 'returns other rows',
  counterexample: 'differs on a varied copy',
  'same-work': 'the same work',
  slower: 'slower',
  'not-faster': 'not measurably faster',
  fails: 'fails',
  refused: 'refused',
};

function header(label: string, result?: OptimizeResult): Child[] {
  return [
    h('h1', {}, 'Faster equivalent ', h('span', { className: 'muted' }, `· ${label}`)),
    result
      ? h(
          'p',
          { className: 'muted' },
          `database ${result.dbId ?? result.dbPath} · ${result.engine} · decided at ×${result.bounds.scale}` +
            ` · search budget ${result.bounds.budgetSeconds} s · ${(result.elapsedMs / 1000).toFixed(1)} s in all`,
        )
      : null,
  ];
}

function showRunning(message: Extract<OptimizePanelMessage, { type: 'running' }>): void {
  steps = [];
  const b = message.bounds;
  render(
    header(message.label),
    h(
      'p',
      { className: 'muted' },
      `rules in combination, each form kept only with the original's rows, no varied copy telling them apart, and measured faster at ×${b.scale}` +
        ` · budget ${b.budgetSeconds} s, ${b.timeoutSeconds} s a run`,
    ),
    h(
      'div',
      { className: 'progress-line', role: 'status' },
      h('vscode-progress-ring', { className: 'ring', 'aria-label': 'searching' }),
      h('span', { className: 'status' }, 'searching for a faster equivalent…'),
      h('vscode-button', { id: 'cancel', secondary: true, icon: 'debug-stop', onclick: () => page.post({ type: 'cancel' }) }, 'Cancel'),
    ),
    h('ul', { id: 'steps', className: 'optimize-steps muted small' }),
  );
}

function showStep(step: string): void {
  steps.push(plainText(step));
  const list = document.getElementById('steps');
  if (!list) return;
  list.replaceChildren(...steps.slice(-STEPS_SHOWN).map((s) => h('li', {}, s)));
}

function measurementCard(m: SpeedMeasurement, decides: boolean): HTMLElement {
  const interval = m.high === null ? `at least ${times(m.low)}` : `repeat interval ${times(m.low)}–${times(m.high)}`;
  const original = m.originalCutOff ? `over ${duration(m.originalMs)} (stopped)` : duration(m.originalMs);
  return card(
    `speed-up at ×${m.scale}${decides ? '' : ' (information)'}`,
    m.high === null ? `≥ ${times(m.low)}` : times(m.speedup),
    h('span', {}, interval, h('br'), `${original} → ${duration(m.rewriteMs)} · ${counted(m.runs, 'run')}`),
    decides ? 'good' : undefined,
  );
}

function actionButtons(action: RewriteAction): HTMLElement {
  const copy = h(
    'vscode-button',
    { id: 'copy', secondary: action === 'apply' || undefined, icon: 'copy', onclick: () => page.post({ type: 'copy' }) },
    'Copy',
  );
  if (action === 'apply')
    return h(
      'p',
      { className: 'optimize-actions' },
      h('vscode-button', { id: 'apply', icon: 'check', onclick: () => page.post({ type: 'apply' }) }, 'Apply'),
      copy,
      h('span', { className: 'muted small' }, ' replaces the statement in its document (undo as any edit)'),
    );
  return h(
    'p',
    { className: 'optimize-actions' },
    copy,
    h(
      'span',
      { className: 'muted small' },
      action === 'copy'
        ? " this gold is read-only (a question file's view): copy the rewrite to use it"
        : ' the SQL came from no document: copy the rewrite to use it',
    ),
  );
}

function bestSection(result: OptimizeResult, best: KeptRewrite, action: RewriteAction): Child[] {
  const proof = PROOF_WORDS[best.verification.proof];
  const [decisive, ...others] = best.measurements;
  const diff = sqlDiff(result.formatted.original, result.formatted.rewrite ?? best.sql);
  return [
    h(
      'div',
      { className: 'row' },
      decisive ? measurementCard(decisive, true) : null,
      others.map((m) => measurementCard(m, false)),
      card('proof', proof.title, proof.meaning, proof.className),
      card('patterns', best.patterns.join(' + ') || '–', `${counted(result.optimization.tried, 'form')} tried`),
    ),
    actionButtons(action),
    h('p', { className: `proof-line ${proof.className}` }, icon(proof.icon), ` ${plainText(best.verification.summary)}`),
    best.notes.length
      ? h(
          'ul',
          { className: 'muted small pattern-notes' },
          best.notes.map((n) => h('li', {}, plainText(n))),
        )
      : null,
    h(
      'h2',
      {},
      'The rewrite against the original ',
      h('span', { className: 'muted small' }, `${counted(diff.counts.removed, 'line')} out, ${counted(diff.counts.added, 'line')} in`),
    ),
    diff.block,
    h('details', {}, h('summary', {}, 'The rewrite alone'), sqlBlock(result.formatted.rewrite ?? best.sql, 'the rewrite')),
  ];
}

function rejectedSection(result: OptimizeResult): Child[] {
  const o = result.optimization;
  const counts = Object.entries(o.rejectedCounts)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([reason, n]) => `${n} ${REASON_WORDS[reason as RejectedCandidate['reason']] ?? reason}`);
  if (o.rejected.length === 0) return [h('h2', {}, 'Tried and rejected'), h('p', { className: 'muted' }, 'nothing rejected')];
  return [
    h('h2', {}, 'Tried and rejected ', h('span', { className: 'muted small' }, counts.join(', '))),
    h(
      'div',
      { className: 'table-box' },
      h(
        'table',
        { className: 'rejected' },
        h('thead', {}, h('tr', {}, h('th', {}, 'patterns'), h('th', {}, 'why not'), h('th', {}, 'detail'))),
        h(
          'tbody',
          {},
          o.rejected.map((r) =>
            h(
              'tr',
              { className: `reason-${r.reason}` },
              h('td', {}, r.patterns.join(' + ') || '–'),
              h('td', {}, REASON_WORDS[r.reason] ?? r.reason),
              h(
                'td',
                {},
                plainText(r.detail),
                r.witness
                  ? h(
                      'div',
                      { className: 'witness small' },
                      icon('database'),
                      ' ',
                      h('code', {}, r.witness),
                      ' ',
                      h(
                        'vscode-button',
                        {
                          secondary: true,
                          icon: 'copy',
                          onclick: () => page.post({ type: 'witness', action: 'copy', database: r.witness! }),
                        },
                        'Copy path',
                      ),
                    )
                  : null,
                h('details', { className: 'small' }, h('summary', {}, 'its SQL'), sqlBlock(r.sql, 'the rejected form')),
              ),
            ),
          ),
        ),
      ),
    ),
  ];
}

function showResult(message: Extract<OptimizePanelMessage, { type: 'result' }>): void {
  const { result, action } = message;
  const o = result.optimization;
  const original = o.original.cutOff ? `over ${duration(o.original.ms)} (stopped at the limit)` : duration(o.original.ms);
  const verdict: Child =
    o.status === 'optimized'
      ? null
      : h(
          'p',
          { className: o.status === 'no-faster-form' || o.status === 'interrupted' ? 'warn verdict' : 'error verdict' },
          icon(o.status === 'no-faster-form' ? 'info' : 'warning'),
          ' ',
          o.status === 'no-faster-form'
            ? `No faster equivalent found: ${counted(o.tried, 'form')} tried, none both the same rows and measured faster at ×${o.original.scale}.`
            : o.status === 'interrupted'
              ? 'The search was interrupted: nothing is offered.'
              : o.status === 'refused'
                ? 'Not searched: this statement does not run as a query.'
                : 'Not searched: the original does not run.',
        );
  render(
    header(message.label, result),
    // With a rewrite kept, its card gives both times as measured against each other; else the search's own.
    o.best ? null : h('p', {}, `The original: ${original} at ×${o.original.scale}.`),
    verdict,
    o.best ? bestSection(result, o.best, action) : null,
    o.notes.length
      ? h(
          'ul',
          { className: 'notes muted small' },
          o.notes.map((n) => h('li', {}, plainText(n))),
        )
      : null,
    o.status === 'refused' || o.status === 'original-fails' ? null : rejectedSection(result),
    h('h2', {}, 'The original'),
    sqlBlock(result.formatted.original, 'the original'),
    h(
      'p',
      {},
      h(
        'vscode-button',
        { id: 'rerun', secondary: true, icon: 'debug-rerun', onclick: () => page.post({ type: 'rerun' }) },
        'Search again',
      ),
      ' ',
      h('vscode-button', { secondary: true, icon: 'settings-gear', onclick: () => page.post({ type: 'settings' }) }, 'Scale and budgets…'),
    ),
    indexSection(),
  );
  const advice = page.state().advice;
  if (advice) showAdvice(advice);
}

// ---- index advice, apart from the rewrites -------------------------------------------------------------

function indexSection(): HTMLElement {
  return h(
    'section',
    { id: 'indexes' },
    h('h2', {}, 'Indexes'),
    h(
      'p',
      { className: 'muted small' },
      'Kept apart from the rewrites: an index changes the database, which a BIRD gold cannot do. Each is tried on a copy; the database is never written.',
    ),
    h('div', { id: 'index-body' }, adviceButtons(false)),
  );
}

function adviceButtons(advised: boolean): HTMLElement {
  return h(
    'p',
    {},
    advised
      ? null
      : h(
          'vscode-button',
          { id: 'advise', secondary: true, icon: 'lightbulb', onclick: () => page.post({ type: 'indexAdvice', measure: false }) },
          'Advise indexes',
        ),
    ' ',
    h(
      'vscode-button',
      { id: 'measure', secondary: true, icon: 'pulse', onclick: () => page.post({ type: 'indexAdvice', measure: true }) },
      'Measure them',
    ),
  );
}

function indexVerdict(v: IndexVerdictView): string {
  if (!v.used) return 'the planner ignores it';
  if (v.speed === 'faster') return 'used, measured faster: recommended';
  if (v.speed === 'no-difference') return 'used, no measurable change: not recommended';
  if (v.speed === 'slower') return 'used, but measured slower: not recommended';
  if (v.unmeasured) return `used, not measured: ${plainText(v.unmeasured)}`;
  return 'the planner would use it (not measured)';
}

function showAdvice(advice: IndexAdviceResult): void {
  const body = document.getElementById('index-body');
  if (!body) return;
  const content: Child[] = [];
  if (advice.error) content.push(h('p', { className: 'warn' }, `no index advice: ${plainText(advice.error)}`));
  else if (advice.unchecked) {
    content.push(h('p', { className: 'warn' }, plainText(advice.unchecked.reason)));
    content.push(advice.unchecked.createSql.map((sql) => sqlBlock(`${sql};`)));
  } else if (advice.verdicts.length === 0)
    content.push(h('p', { className: 'muted' }, 'no index to propose: the columns it filters, joins or sorts on are indexed already'));
  else
    content.push(
      h(
        'div',
        { className: 'table-box' },
        h(
          'table',
          { className: 'index-advice' },
          h('thead', {}, h('tr', {}, h('th', {}, 'index'), h('th', {}, 'serves'), h('th', {}, 'verdict'), h('th', {}, 'measured'))),
          h(
            'tbody',
            {},
            advice.verdicts.map((v) =>
              h(
                'tr',
                { className: v.recommended ? 'recommended' : v.used ? '' : 'muted' },
                h('td', {}, h('code', {}, `${v.createSql};`)),
                h('td', {}, plainText(v.reason)),
                h('td', {}, v.recommended && advice.measured ? icon('pass') : null, ' ', indexVerdict(v)),
                h(
                  'td',
                  { className: 'num' },
                  v.measured
                    ? `${times(v.measured.ratio)} (${times(v.measured.low)}–${times(v.measured.high)}); ${duration(v.measured.withoutMs)} → ${duration(v.measured.withMs)}`
                    : '–',
                ),
              ),
            ),
          ),
        ),
      ),
    );
  if (advice.method) content.push(h('p', { className: 'muted small' }, plainText(advice.method)));
  content.push(advice.measured ? null : adviceButtons(true));
  body.replaceChildren(...(content.flat(3).filter(Boolean) as (Node | string)[]));
}

function handle(message: OptimizePanelMessage, restored: boolean): void {
  switch (message.type) {
    case 'running':
      if (restored) {
        // A reload lost the search: say so rather than spin forever.
        render(header(message.label), h('p', { className: 'muted' }, 'The search shown here was stopped by a reload: search again.'));
        return;
      }
      page.saveState({ advice: undefined });
      page.remember(message);
      showRunning(message);
      return;
    case 'step':
      showStep(message.message);
      return;
    case 'result':
      page.remember(message);
      showResult(message);
      return;
    case 'cancelled':
      render(h('h1', {}, 'Faster equivalent'), h('p', { className: 'muted' }, 'Cancelled: nothing is offered.'));
      return;
    case 'error':
      render(h('h1', {}, 'Faster equivalent'), h('p', { className: 'error' }, plainText(message.message)));
      return;
    case 'applied':
      document.getElementById('apply')?.setAttribute('disabled', '');
      document.querySelector('.optimize-actions')?.append(h('span', { className: 'status good' }, ` ${plainText(message.message)}`));
      return;
    case 'index-running':
      document
        .getElementById('index-body')
        ?.replaceChildren(
          h(
            'p',
            { className: 'progress-line' },
            h('vscode-progress-ring', { className: 'ring' }),
            message.measure ? 'timing the query with each index on a temporary copy…' : 'asking the planner on a schema-only copy…',
          ),
        );
      return;
    case 'index-advice':
      page.saveState({ advice: message.advice });
      showAdvice(message.advice);
      return;
    case 'index-failed':
      document
        .getElementById('index-body')
        ?.replaceChildren(h('p', { className: 'error' }, plainText(message.message)), adviceButtons(false));
      return;
  }
}

page.restore();
