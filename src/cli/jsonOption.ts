import { Command, OptionValues } from 'commander';
import { UsageError } from './common';
import { quoted } from '../core/text/problemText';
import { writeOutputFile } from '../app/runOutputs';
import { JsonShape, snakeCaseJson } from './jsonCase';

/**
 * One convention for every command: `--json [file]`. With a file the JSON is written there (and the terminal
 * output is printed as usual); with no value or `-` the JSON goes to standard output, alone (so it can be
 * piped), and what would be printed for a person goes to standard error or is left out.
 */
export const JSON_FLAGS = '--json [file]';

/** The help of `--json [file]`: what is written, and where. */
export function jsonHelp(what: string): string {
  return `write ${what} as JSON to <file>; with no <file> (or -) print it on standard output instead of the tables`;
}

/** Where a command's JSON goes, as the commands read it. */
export interface JsonDestination {
  /** The file to write (`--json out.json`); undefined when there is none. */
  json?: string;
  /** `--json` alone or `--json -`: the JSON on standard output, nothing else there. */
  jsonStdout?: boolean;
}

/** Commander's value of `--json [file]` (true without a value) as the two fields above. */
export function jsonDestination(value: unknown): Required<Pick<JsonDestination, 'jsonStdout'>> & Pick<JsonDestination, 'json'> {
  if (value === undefined || value === false) return { json: undefined, jsonStdout: false };
  if (value === true || value === '-') return { json: undefined, jsonStdout: true };
  const file = String(value);
  if (file.trim() === '') throw new UsageError('--json: give a file name, or nothing (or -) for standard output');
  return { json: file, jsonStdout: false };
}

/** A command's options, as commander hands them over, with `--json [file]` turned into `json` (a file) and `jsonStdout`. */
export function withJsonDestination<T extends OptionValues>(options: T): T & JsonDestination {
  return { ...options, ...jsonDestination(options.json) };
}

/** Text that is a query, not a file name: `--json SELECT ...` took the query meant for the command. */
const SQL_LIKE = /^\s*(select|with|values|insert|update|delete|explain|pragma)\b[\s\S]*\s/i;

/**
 * `--json` takes an optional value, so it takes the word after it unless that word is an option. Two cases
 * would silently misread the command line, and are refused before any work, saying what to write instead:
 * a query (`hints --db x.sqlite --json "SELECT ..."`) and, in a command that reads a list of files, a value
 * followed by more of them (`compare --json a.json b.json c.json`: is a.json a report or the output?).
 */
export function checkJsonValue(command: Command, argv: readonly string[]): void {
  const value = command.opts().json;
  if (typeof value !== 'string' || value === '-') return;
  if (SQL_LIKE.test(value))
    throw new UsageError(
      `--json: ${quoted(value)} is a query, not a file to write; --json takes an optional file, so put the query before --json (or write --json -)`,
    );
  const at = argv.lastIndexOf('--json');
  if (at === -1 || argv[at + 1] !== value) return; // --json=<file>: said explicitly
  const readsFiles = command.registeredArguments.some((argument) => argument.variadic);
  const after = argv.slice(at + 2);
  if (readsFiles && command.args.some((operand) => after.includes(operand)))
    throw new UsageError(
      `--json: ${quoted(value)} would be the file written, yet more ${command.name()} inputs follow it; write --json=${value} to write that file, or put --json (or --json -, standard output) after the inputs`,
    );
}

/**
 * Prints the JSON on standard output and/or writes it to the --json file (saying so on standard error), its field
 * names in snake_case; `shape` names the objects whose keys are data, kept as they are (cli/jsonCase.ts).
 */
export function emitJson(destination: JsonDestination, value: unknown, shape?: JsonShape): void {
  const text = JSON.stringify(snakeCaseJson(value, shape), null, 2) + '\n';
  if (destination.jsonStdout) process.stdout.write(text);
  if (destination.json) {
    writeOutputFile('--json', destination.json, text);
    process.stderr.write(`wrote ${destination.json}\n`);
  }
}
