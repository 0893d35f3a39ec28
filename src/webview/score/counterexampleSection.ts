// The Score panel's "Can EX be trusted here?" section, for an EX-correct pair: "Look for a database where they
// differ" (CounterexampleRequest). It shows what the server found: provably equivalent (with the reason, nothing
// searched), a witness (how it was made, its tables' first rows, the gold and prediction results on it side by
// side with the rows the other lacks marked, its file with Reveal and Copy path), or none found in how long after
// how many variations. Its own state, like the Judge's: it stays with the score of the same prediction.
import { plainText } from '../../core/text/terminalText';
import type { CounterexampleResult, ScoreResult, WitnessResultView, WitnessView } from '../../shared/protocol';
import type { ScoreContext, ScorePanelMessage } from '../../shared/webviewMessages';
import { Child, h, icon, nodes } from '../common/dom';
import { previewTable } from '../common/elements';
import { counted } from '../common/format';
import { sideBySide } from './scoreSections';
import { channel, shown } from './scoreState';

/** A longer search, offered when the first ran out of time. */
const LONGER_SEARCH_SECONDS = 60;

type Status = { running: string } | { failed: string; cancelled: boolean } | null;

/** The latest answer and what it was about; the search under way or how the last one ended. */
let found: { result: CounterexampleResult; context: ScoreContext } | null = null;
let status: Status = null;
/** The search whose messages are coming (a later score of another prediction drops them). */
let searching: ScoreContext | null = null;

const sameContext = (a: ScoreContext | null, b: ScoreContext | null) => a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b);

const seconds = (s: number) => `${s < 1 ? s.toFixed(2) : s < 10 ? s.toFixed(1) : Math.round(s)} s`;

/** The score on screen is still being timed: a search beside it would disturb the timing. */
let timing = false;

function searchButton(label: string, budgetSeconds: number, secondary = false): HTMLElement {
  return h(
    'vscode-button',
    {
      className: 'counterexample-search',
      secondary: secondary || undefined,
      disabled: timing || undefined,
      icon: 'search',
      onclick: () => shown.context && channel.post({ type: 'counterexample', context: shown.context, budgetSeconds }),
    },
    label,
  );
}

/** A result on the witness, its rows the other result lacks marked (a sign in their own column, and a tint). */
function witnessResult(side: WitnessResultView, title: string, other: string): HTMLElement {
  const block = previewTable({ ...side, truncated: side.rowCount > side.rows.length }, title);
  const lacking = `not in the ${other}'s result`;
  block.querySelector('thead tr')?.prepend(h('th', { className: 'differs-mark', scope: 'col', 'aria-label': lacking }));
  block.querySelectorAll('tbody tr').forEach((row, i) => {
    // The "no rows" line of an empty result has no mark.
    const differs = side.rows.length > 0 && side.differs[i];
    row.classList.toggle('differs', differs);
    const mark = differs ? { title: lacking, 'aria-label': lacking } : {};
    row.prepend(h('td', { className: 'differs-mark', ...mark }, differs ? icon('diff-removed') : null));
  });
  const note =
    side.error || side.rowCount === 0
      ? null
      : side.differingCount
        ? `${counted(side.differingCount, 'row')} ${lacking}`
        : `every row is in the ${other}'s result`;
  return h('div', { className: 'witness-side' }, block, note ? h('p', { className: 'muted small' }, note) : null);
}

function witnessSection(witness: WitnessView): Child[] {
  const path = witness.database;
  return [
    h('p', { className: 'witness-how' }, icon('warning'), ' ', h('strong', {}, 'They differ on this database: '), plainText(witness.how)),
    h('h3', {}, 'Gold and prediction on it'),
    sideBySide(witnessResult(witness.gold, 'gold', 'prediction'), witnessResult(witness.prediction, 'prediction', 'gold')),
    h('h3', {}, 'Its rows'),
    h(
      'div',
      { className: 'witness-tables' },
      witness.tables.map((table) =>
        previewTable(
          { columns: table.columns, rows: table.rows, rowCount: table.rowCount, truncated: table.rowCount > table.rows.length },
          table.name,
        ),
      ),
    ),
    h(
      'div',
      { className: 'actions witness-file' },
      h('span', { className: 'muted' }, 'SQLite file: '),
      h('code', { className: 'witness-path' }, plainText(path)),
      h(
        'vscode-button',
        { secondary: true, icon: 'go-to-file', onclick: () => channel.post({ type: 'witness', action: 'reveal', database: path }) },
        'Reveal',
      ),
      h(
        'vscode-button',
        { secondary: true, icon: 'copy', onclick: () => channel.post({ type: 'witness', action: 'copy', database: path }) },
        'Copy path',
      ),
    ),
  ];
}

function searchSummary(result: CounterexampleResult): string {
  const search = result.search;
  if (!search) return '';
  return `${seconds(search.seconds)}, ${counted(search.variations_tried, 'variation')} of the tables read tried`;
}

/** What the server answered, worded honestly: a proof, a witness, or how much was searched without one. */
function answer(result: CounterexampleResult): Child[] {
  const note = result.search?.note ? ` (${plainText(result.search.note)})` : '';
  const agreesOnly = result.equivalence
    ? h(
        'p',
        { className: 'muted' },
        `Agrees with the gold on the real database; not proved equivalent (${plainText(result.equivalence.reason)}).`,
      )
    : null;
  switch (result.status) {
    case 'equivalent':
      return [
        h(
          'p',
          { className: 'equivalent' },
          icon('pass'),
          ' ',
          h('strong', {}, 'Provably equivalent: '),
          plainText(result.equivalence?.reason ?? ''),
          '. No database with this schema can tell them apart as EX compares them, so none was searched.',
        ),
      ];
    case 'not_correct':
      return [
        h(
          'p',
          { className: 'muted' },
          `The prediction does not agree with the gold on this database now (${result.outcome.replace('_', ' ')}): score it again.`,
        ),
      ];
    case 'found':
      return [
        ...(result.witness ? witnessSection(result.witness) : []),
        agreesOnly,
        h('p', { className: 'muted small' }, `found in ${searchSummary(result)}`),
      ];
    case 'none_found':
      return [
        h('p', {}, icon('circle-slash'), ` None found in ${searchSummary(result)}${note}.`),
        h('p', { className: 'muted' }, 'They agree on every variation tried; that is no proof that they always do.'),
        agreesOnly,
      ];
    case 'budget_spent':
      return [
        h('p', {}, icon('watch'), ` None found within ${result.budgetSeconds} s: ${searchSummary(result)}${note}.`),
        agreesOnly,
        h('div', { className: 'actions' }, searchButton(`Search longer (${LONGER_SEARCH_SECONDS} s)`, LONGER_SEARCH_SECONDS, true)),
      ];
    default:
      return [h('p', { className: 'muted' }, `Not searched${note || '.'}`), agreesOnly];
  }
}

function content(): Child[] {
  const title = h(
    'h2',
    {},
    'Can EX be trusted here? ',
    h('span', { className: 'muted small' }, '(EX compares the two results on this one database only)'),
  );
  if (status && 'running' in status) {
    return [
      title,
      h(
        'div',
        { className: 'actions', role: 'status' },
        h('vscode-progress-ring', { className: 'ring', 'aria-label': 'searching' }),
        h('span', { className: 'status' }, `${plainText(status.running)}…`),
        h(
          'vscode-button',
          { secondary: true, icon: 'debug-stop', onclick: () => channel.post({ type: 'cancel-counterexample' }) },
          'Cancel',
        ),
      ),
    ];
  }
  const failure =
    status && 'failed' in status
      ? h(
          'p',
          { className: status.cancelled ? 'muted' : 'error' },
          status.cancelled ? 'search cancelled' : `the search failed: ${plainText(status.failed)}`,
        )
      : null;
  const mine = found && sameContext(found.context, shown.context) ? found.result : null;
  if (mine) return [title, failure, answer(mine)];
  const budget = shown.result?.counterexampleSeconds ?? 0;
  return [
    title,
    failure,
    h(
      'div',
      { className: 'actions' },
      searchButton('Look for a database where they differ', budget),
      h(
        'span',
        { className: 'muted' },
        timing
          ? 'once the timing has finished (a search beside it would disturb the timing)'
          : `provable equivalence first; else variations of the tables read (rows dropped, duplicated, NULLs, ties, values changed), up to ${budget} s`,
      ),
    ),
  ];
}

/** The section's slot in a score view: only for an EX-correct pair the server can search (SQLite). */
export function counterexampleSlot(result: ScoreResult, partial: boolean): HTMLElement | null {
  if (!result.counterexampleSeconds) return null;
  timing = partial;
  // A new prediction on screen: what was found or tried for another does not show over it.
  if (!sameContext(searching, shown.context)) status = null;
  const slot = h('section', { id: 'counterexample', 'aria-label': 'counterexample' });
  slot.append(...nodes(content()));
  return slot;
}

function draw(): void {
  document.getElementById('counterexample')?.replaceChildren(...nodes(content()));
}

/** The section's messages; true when `data` was one. */
export function handleCounterexample(data: ScorePanelMessage, restored: boolean): boolean {
  if (data.type === 'counterexample-running') {
    searching = data.context;
    status = { running: `starting (a search of up to ${data.budgetSeconds} s)` };
    draw();
    return true;
  }
  // Progress and failures name no prediction: they are of the search under way, shown only beside its score.
  const ofShown = sameContext(searching, shown.context);
  if (data.type === 'counterexample-progress') {
    if (status && 'running' in status && ofShown) status = { running: data.message };
    draw();
    return true;
  }
  if (data.type === 'counterexample') {
    found = { result: data.result, context: data.context };
    status = null;
    draw();
    if (!restored) channel.saveState({ counterexample: data });
    if (!restored) document.getElementById('counterexample')?.scrollIntoView({ block: 'start' });
    return true;
  }
  if (data.type === 'counterexample-failed') {
    status = ofShown ? { failed: data.message, cancelled: data.cancelled } : null;
    draw();
    return true;
  }
  return false;
}
