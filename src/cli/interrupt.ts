import pc from 'picocolors';
import { handleStopSignals } from '../app/interruption';

/**
 * Ctrl-C (SIGINT) and SIGTERM for every command (app/interruption.ts): a signal removes this process's temporaries
 * and exits 130 (143); eval, judge and audit stop at the first one instead, said here, and write what they finished.
 */
export function installSignalHandlers(): void {
  handleStopSignals((name, what) =>
    process.stderr.write(
      `\n${pc.yellow('interrupted')} (${name}): ${what}; ${name === 'SIGINT' ? 'Ctrl-C' : 'the signal'} again stops at once\n`,
    ),
  );
}
