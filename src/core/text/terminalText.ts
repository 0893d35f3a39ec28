/** A terminal colour or control sequence (CSI with its parameters, or a two-byte escape). */
const TERMINAL_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]?/g;

/** Text as a panel, a notification or a width count should see it: without terminal colour codes. */
export function plainText(text: unknown): string {
  return String(text ?? '').replace(TERMINAL_ESCAPES, '');
}
