/**
 * Ctrl-C (SIGINT) and SIGTERM for a process that runs use cases. By default a signal removes this process's
 * temporaries and exits 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM), so an interrupted write or
 * scaled copy leaves nothing behind. A run that can stop cleanly (eval, judge, audit) asks for `interruptible()`:
 * the first signal then aborts its signal instead (the face says so through `onInterrupt`), and the run keeps what
 * it finished; a second signal stops at once.
 */
import { removeLiveTemporaries } from '../core/io/atomicFile';

export type StopSignal = 'SIGINT' | 'SIGTERM';

const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

let current: { controller: AbortController; what: string; received?: StopSignal } | undefined;

/**
 * Installs the handlers (once per process): without them Node would end at once and leave temporaries.
 * `onInterrupt` is told when a first signal stops a run instead (`what`: what the run does next).
 */
export function handleStopSignals(onInterrupt: (signal: StopSignal, what: string) => void): void {
  const onSignal = (name: StopSignal) => {
    if (current && !current.controller.signal.aborted) {
      current.received = name;
      onInterrupt(name, current.what);
      current.controller.abort();
      return;
    }
    removeLiveTemporaries();
    process.exit(SIGNAL_EXIT[name]);
  };
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
