import pc from 'picocolors';
import { removeLiveTemporaries } from '../core/io/atomicFile';

/**
 * Ctrl-C (SIGINT) and SIGTERM for every command. By default a signal removes this process's temporaries and
 * exits 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM), so an interrupted write or scaled copy
 * leaves nothing behind. A command that can stop cleanly (eval, judge) asks for `interruptible()`: the first
 * signal then aborts its signal instead, and the command writes what it finished; a second signal stops at once.
 */

const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

let current: { controller: AbortController; what: string; received?: 'SIGINT' | 'SIGTERM' } | undefined;

function onSignal(name: 'SIGINT' | 'SIGTERM'): void {
  if (current && !current.controller.signal.aborted) {
    current.received = name;
    process.stderr.write(
      `\n${pc.yellow('interrupted')} (${name}): ${current.what}; ${name === 'SIGINT' ? 'Ctrl-C' : 'the signal'} again stops at once\n`,
    );
    current.controller.abort();
    return;
  }
  removeLiveTemporaries();
  process.exit(SIGNAL_EXIT[name]);
}

/** Installs the handlers (once, from main.ts): without them Node would end at once and leave temporaries. */
export function installSignalHandlers(): void {
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}

export interface Interruptible {
  /** Aborted by the first SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** The exit code the interruption calls for (130 or 143), or undefined while not interrupted. */
  exitCode(): number | undefined;
  /** Back to the default: a signal exits at once. */
  dispose(): void;
}

/** The first signal aborts the returned signal (`what` says what happens next) instead of ending the process. */
export function interruptible(what: string): Interruptible {
  const state = { controller: new AbortController(), what } as NonNullable<typeof current>;
  current = state;
  return {
    signal: state.controller.signal,
    exitCode: () => (state.received ? SIGNAL_EXIT[state.received] : undefined),
    dispose: () => {
      if (current === state) current = undefined;
    },
  };
}
