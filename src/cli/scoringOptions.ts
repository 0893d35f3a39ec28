import { Command, Option } from 'commander';

/** --dialect-check, for the commands that run a gold (and predictions) on an engine (eval, judge, audit). */
export function addDialectCheckOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--dialect-check <on|off>',
      "refuse a gold or prediction file whose SQL reads as another dialect than the engine's (MySQL's backticks, PostgreSQL's ::, SQLite's STRFTIME), saying which --engine to pass; off: score it anyway",
    ).choices(['on', 'off']),
  );
}
