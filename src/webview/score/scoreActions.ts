// The buttons and status line under the Score panel's cards: re-run with more iterations, cancel, and what
// happened to the last run.
import { plainText } from '../../core/text/terminalText';
import type { ScoreResult } from '../../shared/protocol';
import { app, h, nodes } from '../common/dom';
import { channel, shown } from './scoreState';

export type ActionsState = 'idle' | 'partial' | 'rerunning' | 'cancelled' | 'error' | 'timing-cancelled' | 'timing-error';

let ticker: number | undefined;

/** Something was timed: a re-run with more iterations can tighten it. */
export const timed = (result: ScoreResult): boolean => !result.same_program && Boolean(result.timings.ves || result.timings.rves);

export function stopTicker(): void {
  window.clearInterval(ticker);
  ticker = undefined;
}

export function cancelButton(): HTMLElement {
  return h('vscode-button', { secondary: true, icon: 'debug-stop', onclick: () => channel.post({ type: 'cancel' }) }, 'Cancel');
}

/** "Find a faster equivalent" of the prediction scored, on its question's database (the Optimize panel). */
function optimizeButton(): HTMLElement | null {
  const { context, result } = shown;
  if (!context || !result) return null;
  return h(
    'vscode-button',
    {
      id: 'optimize',
      secondary: true,
      icon: 'zap',
      title: 'search for a rewrite that returns the same rows and is measured faster',
      onclick: () => channel.post({ type: 'optimize', context, dbId: result.question.dbId }),
    },
    'Find a faster equivalent',
  );
}

/** The bar under the cards in a state; `message` says why a run failed. */
export function actions(state: ActionsState, message?: string): void {
  const bar = document.getElementById('actions');
  const current = shown.result;
  if (!bar || !current) return;
  stopTicker();
  const cancel = cancelButton();
  const rerun = timed(current)
    ? h(
        'vscode-button',
        {
          id: 'rerun',
          icon: 'debug-rerun',
          disabled: state === 'rerunning' || undefined,
          onclick: () => shown.context && channel.post({ type: 'rerun', context: shown.context }),
        },
        'Re-run with more iterations',
      )
    : null;
  if (state === 'partial') {
    bar.replaceChildren(
      h('vscode-progress-ring', { className: 'ring' }),
      h('span', { className: 'status' }, 'timing prediction and gold…'),
      cancel,
    );
  } else if (state === 'rerunning') {
    const started = Date.now();
    const elapsed = h('span', { className: 'elapsed' }, '0 s');
    // The buttons, then a progress line under them (one line at any panel width).
    bar.replaceChildren(
      ...nodes([
        rerun,
        cancel,
        h(
          'div',
          { className: 'progress-line', role: 'status' },
          h('vscode-progress-ring', { className: 'ring', 'aria-label': 're-running' }),
          h('span', { className: 'status' }, 're-running with more iterations… ', elapsed),
        ),
        h('div', { className: 'progress-line muted' }, 'the numbers shown are from the previous run until the new ones arrive'),
      ]),
    );
    ticker = window.setInterval(() => {
      elapsed.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
    }, 1000);
  } else if (state === 'cancelled') {
    bar.replaceChildren(
      ...nodes([rerun, h('span', { className: 'status muted' }, 're-run cancelled: the numbers shown are from the previous run')]),
    );
  } else if (state === 'error') {
    bar.replaceChildren(...nodes([rerun, h('span', { className: 'status error' }, `re-run failed: ${plainText(message)}`)]));
  } else if (state === 'timing-cancelled') {
    bar.replaceChildren(
      h('span', { className: 'status muted' }, 'timing cancelled: EX and Soft-F1 above are final; no speed was measured'),
    );
  } else if (state === 'timing-error') {
    bar.replaceChildren(h('span', { className: 'status error' }, `timing failed: ${plainText(message)}; EX and Soft-F1 above are final`));
  } else {
    bar.replaceChildren(...nodes([rerun, optimizeButton()]));
  }
  app().classList.toggle('stale', state === 'rerunning');
}
