import { Command, Option } from 'commander';
import pc from 'picocolors';
import { InputFileError } from '../core/bird/problems';
import { DEFAULT_MAX_ROWS } from '../core/eval/evaluate';
import { TOOL_NAME, TOOL_VERSION, UsageError } from './common';
import { runEval } from './evalCommand';
import { runExplain } from './explainCommand';
import { runHints } from './hintsCommand';
import { runIndexes, runRerank } from './planCommands';

const program = new Command()
  .name(TOOL_NAME)
  .description('How correct and how efficient SQL is on BIRD-style SQLite databases.')
  .version(TOOL_VERSION);

program
  .command('eval')
  .description('Score a prediction file against gold as the official BIRD scripts do (EX, Soft-F1, VES, R-VES).')
  .requiredOption('--questions <file>', 'BIRD question file (JSON list: question_id, db_id, SQL, difficulty)')
  .requiredOption('--predictions <file>', 'predictions: official {"0": "SQL\\t----- bird -----\\tdb_id"}, a JSON list with question_id/predicted_sql, or one SQL a line')
  .requiredOption('--db-root <dir>', 'folder holding <db_id>/<db_id>.sqlite')
  .option('--gold <file>', 'gold SQL file (SQL<TAB>db_id a line); default: the questions\' SQL field')
  .option('--metrics <list>', 'comma-separated: ex, f1, ves, rves', 'ex,f1,ves,rves')
  .addOption(new Option('--timing <mode>', 'fast: adaptive, interleaved, stops at a tight interval; official: 100 runs and 3σ cleaning as the scripts').choices(['fast', 'official']).default('fast'))
  .option('--timeout <seconds>', 'time limit for one prediction/gold pair', '30')
  .option('--max-rows <n>', 'rows one result may have (bounds memory)', String(DEFAULT_MAX_ROWS))
  .option('--iterations <n>', 'runs of each pair with --timing official (official: 100)')
  .option('--json <file>', 'write every question\'s result as JSON')
  .option('--no-progress', 'no progress bar')
  .action(async (options) => {
    process.exitCode = await runEval(options);
  });

/** A command that works on SQL: the query as an argument or every statement of --file, on one database. */
function sqlCommand(name: string, description: string, database: string) {
  return program
    .command(name)
    .description(description)
    .argument('[sql]', 'the query (or use --file)')
    .requiredOption('--db <file>', database)
    .option('--file <file>', 'every statement of a .sql file')
    .option('--json', 'print the result as JSON');
}

sqlCommand('explain', "SQLite's query plan as an annotated tree: scans, searches, temp B-trees, subqueries, with row counts and costs.", 'the SQLite database (opened read-only)')
  .option('--vs <gold-sql>', 'compare with this (gold) query: both plans side by side, and what differs')
  .action(async (sql, options) => {
    process.exitCode = await runExplain(sql, options);
  });

sqlCommand('indexes', 'Propose indexes for a query, check which ones SQLite would use, and (--measure) time them on a temporary copy.', 'the SQLite database (never modified)')
  .option('--measure', 'time the query with each used index on a temporary copy of the database')
  .option('--timeout <seconds>', 'time limit for one run', '30')
  .action(async (sql, options) => {
    process.exitCode = await runIndexes(sql, options);
  });

sqlCommand('hints', 'Rewrite hints (VL001...) with exact ranges; --verify checks each rewrite on the database and measures it.', 'the SQLite database (opened read-only)')
  .option('--verify', 'run original and rewrite: same rows (as a set and as a bag)? measured speed-up?')
  .option('--timeout <seconds>', 'time limit for one run', '30')
  .option('--max-rows <n>', 'rows one result may have', String(DEFAULT_MAX_ROWS))
  .action(async (sql, options) => {
    process.exitCode = await runHints(sql, options);
  });

program
  .command('rerank')
  .description('Order candidate SQLs for one question by plan cost, executable ones first (cost-aware re-ranking).')
  .requiredOption('--db <file>', 'the SQLite database (opened read-only)')
  .requiredOption('--candidates <file>', 'a .sql file (one candidate a statement), a JSON list, or one SQL a line')
  .option('--timeout <seconds>', 'time limit for running one candidate', '30')
  .option('--max-rows <n>', 'rows one candidate may return', String(DEFAULT_MAX_ROWS))
  .option('--json', 'print the ranking as JSON')
  .action(async (options) => {
    process.exitCode = await runRerank(options);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof InputFileError) {
    process.stderr.write(`${pc.red('error')}: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`${pc.red('unexpected error')}: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  }
});
