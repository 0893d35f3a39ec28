import pc from 'picocolors';
import type { VerifyLimits } from '../core/hints/verify';
import { HintsRunSettings, prepareHintsRun, runHintsRun } from '../app/hintsRun';
import { queryDatabaseLine, querySchema } from '../app/queryDatabase';
import { checkOutputFile, parseScales, positiveInteger, timeoutMs, UsageError } from './common';
import { toolInfo } from '../app/toolInfo';
import { emitJson, JsonDestination } from './jsonOption';
import { JSON_SHAPES } from './jsonCase';
import { openCommandDatabase, sqlFromArguments, SqlCommandOptions } from './explainCommand';

export interface HintsCommandOptions extends SqlCommandOptions, JsonDestination {
  verify?: boolean;
  timeout: string;
  maxRows: string;
  scales?: string;
  schema?: string;
}

const VERDICT_COLOUR = {
  faster: pc.green,
  slower: pc.yellow,
  'no-difference': pc.yellow,
  'same-work': pc.yellow,
  'changes-results': pc.red,
  failed: pc.red,
} as const;

export async function runHints(sql: string | undefined, options: HintsCommandOptions): Promise<number> {
  const limits: VerifyLimits = {
    timeoutMs: timeoutMs('--timeout', options.timeout),
    maxRows: positiveInteger('--max-rows', options.maxRows),
    scales: options.scales === undefined ? undefined : parseScales(options.scales),
    schemaFile: options.schema,
  };
  if (limits.scales && !options.verify) throw new UsageError('--scales: goes with --verify (it times each rewrite on scaled copies)');
  const { text, source } = sqlFromArguments(sql, options.file);
  if (options.json) checkOutputFile('--json', options.json, [options.file, options.db, options.schema]);
  const opened = await openCommandDatabase(options);
  const { db } = opened;
  const settings: HintsRunSettings = { verify: options.verify, limits };
  try {
    prepareHintsRun(db, settings);
    const statements = await runHintsRun({ db, schema: await querySchema(db) }, text, settings);
    if (options.json || options.jsonStdout) {
      const report = statements.map(({ statement, at, hints, notAnalysed, parserNote, parseError, failedRules }) => ({
        statement: { start: statement.start, end: statement.end, line: at.line, text: statement.text },
        // The note names the analysis that stepped aside: "hints: …" (no rule ran) or "node-sql-parser: …".
        not_analysed: notAnalysed ?? parserNote ?? null,
        parse_error: parseError ?? null,
        failed_rules: failedRules,
        hints: hints.map(({ hint, at: position, verdict }) => ({ ...hint, position, verdict: verdict ?? null })),
      }));
      emitJson(options, { tool: await toolInfo(), engine: opened.engine, db: opened.label, source, statements: report }, JSON_SHAPES.hints);
      if (options.jsonStdout) return 0;
    }
    // On a server, say what ran the verification: its speed-ups are that engine's.
    const out: string[] = options.verify && db.engine.name !== 'sqlite' ? [pc.dim(queryDatabaseLine(opened))] : [];
    let count = 0;
    for (const { at, hints, notAnalysed, parserNote, parseError, failedRules } of statements) {
      // Past the bounds of SQL analysis the rules, or node-sql-parser, stepped aside: said as such, not as a syntax error.
      if (notAnalysed) out.push(pc.dim(`${source}:${at.line}:${at.column} ${notAnalysed}`));
      else if (parserNote) out.push(pc.dim(`${source}:${at.line}:${at.column} ${parserNote}; the token rules still ran`));
      else if (parseError)
        out.push(
          pc.dim(
            `${source}:${at.line}:${at.column} node-sql-parser cannot read this statement (${parseError}); token rules still ran, plans still work`,
          ),
        );
      if (failedRules.length)
        out.push(pc.red(`${source}:${at.line}:${at.column} rules ${failedRules.join(', ')} failed on this statement (please report it)`));
      for (const { hint, at: where, verdict } of hints) {
        count++;
        out.push(
          `${source}:${where.line}:${where.column} ${pc.bold(hint.rule)}${hint.note ? pc.dim(' note') : ''} ${hint.kind === 'correctness' ? pc.red(hint.title) : pc.cyan(hint.title)}`,
        );
        out.push(`  ${hint.message}`);
        if (hint.caveat) out.push(pc.dim(`  caveat: ${hint.caveat}`));
        if (hint.rewrite) out.push(`  rewrite: ${pc.green(hint.rewrite.statement.replace(/\s+/g, ' '))}`);
        for (const other of hint.alternatives?.slice(1) ?? []) out.push(`  or:      ${pc.green(other.statement.replace(/\s+/g, ' '))}`);
        if (verdict) out.push(`  verified: ${VERDICT_COLOUR[verdict.status](verdict.message)}`);
        else if (hint.rewrite && hint.kind === 'speed')
          out.push(pc.dim('  not measured: run with --verify to check the result and time it'));
      }
    }
    out.push(pc.dim(`${count} hint${count === 1 ? '' : 's'} in ${statements.length} statement${statements.length === 1 ? '' : 's'}`));
    process.stdout.write(out.join('\n') + '\n');
    return 0;
  } finally {
    await db.close();
  }
}
