import { Command, Option } from 'commander';
import pc from 'picocolors';
import { runDefaults } from '../app/evalRun';
import { sqliteFallback } from '../app/databaseSource';
import { addEngineOptions, EXIT, reportFailure } from './common';
import { TOOL_NAME, TOOL_VERSION } from '../app/toolInfo';
import { runEval } from './evalCommand';
import { addTechniqueOptions } from './techniqueOptions';
import { runAgree } from './agreeCommand';
import { runJudge } from './judgeCommand';
import { runExplain } from './explainCommand';
import { runHints } from './hintsCommand';
import { runOptimizeCommand } from './optimizeCommand';
import { runIndexes, runRerank } from './planCommands';
import { runCompare } from './compareCommand';
import { runMerge } from './mergeCommand';
import { addCompareGoldOptions, runAudit } from './auditCommand';
import { addAuditOptimizeOptions } from './auditOptimizeOption';
import { runScale } from './scaleCommand';
import { runLoad } from './loadCommand';
import { COMMAND_LINE_WORDING } from './inputWording';
import { useInputWording } from '../core/text/inputWording';
import { checkJsonValue, JSON_FLAGS, jsonHelp, withJsonDestination } from './jsonOption';
import { addHelpExamples } from './helpExamples';
import { installSignalHandlers } from './interrupt';
import { redactStandardStreams } from './redactedOutput';
import { addDialectCheckOption } from './scoringOptions';

// Before anything is written: no password reaches the terminal, whatever shape its URL has.
redactStandardStreams(process.argv.slice(2));

/** What a run takes where an option says nothing (app/evalRun.ts): the defaults the help shows. */
const RUN_DEFAULTS = runDefaults();

// Core's messages name the inputs they refer to by this command line's options.
useInputWording(COMMAND_LINE_WORDING);

/** The run's first line, when SQLite runs as WebAssembly: why (the native module's own reason), and that it is slower. */
function saySqliteBuild(): void {
  const fallback = sqliteFallback();
  if (fallback) process.stderr.write(pc.yellow(`note: SQLite runs as WebAssembly (the same results, slower): ${fallback}`) + '\n');
}

/** --debug anywhere on the line (or VES_LENS_DEBUG=1) prints the stack trace of any error. */
const debug = process.argv.includes('--debug') || Boolean(process.env.VES_LENS_DEBUG);

// Commander's own usage errors (unknown option, missing required option, bad choice) go through the same exit
// rule as ours: exitOverride() makes them thrown CommanderErrors, caught below; set before any command is
// added, so every command inherits it.
const program = new Command()
  .name(TOOL_NAME)
  .description('How correct and how efficient SQL is on BIRD-style SQLite databases.')
  .version(TOOL_VERSION)
  .option('--debug', 'print the stack trace of any error (also VES_LENS_DEBUG=1)')
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, `${pc.red('error')}: `)) });

program
  .command('eval')
  .description('Score a prediction file against gold as the official BIRD scripts do (EX, Soft-F1, VES, R-VES).')
  .requiredOption('--questions <file>', 'BIRD question file (JSON list: question_id, db_id, SQL, difficulty)')
  .requiredOption(
    '--predictions <file>',
    'predictions: official {"0": "SQL\\t----- bird -----\\tdb_id"}, a JSON list with question_id/predicted_sql, or one SQL a line',
  )
  .option('--db-root <dir>', 'folder holding <db_id>/<db_id>.sqlite (the SQLite engine, the default)')
  .option('--gold <file>', "gold SQL file (SQL<TAB>db_id a line); default: the questions' SQL field")
  .option('--metrics <list>', 'comma-separated: ex, f1, ves, rves', 'ex,f1,ves,rves')
  .addOption(
    new Option(
      '--timing <mode>',
      'fast: adaptive, interleaved, stops when the repeat interval is tight; official: 100 runs and 3σ cleaning as the scripts',
    )
      .choices(['fast', 'official'])
      .default('fast'),
  )
  .option('--timeout <seconds>', 'time limit for one prediction/gold pair', '30')
  .option('--max-rows <n>', 'rows one result may have (bounds memory)', String(RUN_DEFAULTS.maxRows))
  .option(
    '--jobs <n>',
    'questions scored for correctness at once (SQLite, or sessions on a PostgreSQL or MySQL server; timing always runs alone); 1 = one at a time',
    String(RUN_DEFAULTS.jobs),
  )
  .option(
    '--no-gold-cache',
    'run every gold query instead of reusing gold results kept from earlier runs on unchanged SQLite files (also VES_LENS_NO_GOLD_CACHE=1)',
  )
  .addOption(
    new Option(
      '--efficiency <kind>',
      "plan-cost (PostgreSQL): also BIRD-Critic's deterministic comparison of EXPLAIN (FORMAT JSON) Total Cost, prediction's vs gold's, beside the timed ratio",
    ).choices(['timed', 'plan-cost']),
  )
  .option('--iterations <n>', 'runs of each pair with --timing official (official: 100)')
  .option(
    '--scales <list>',
    're-time each correct pair on copies of its database scaled by these factors, e.g. 1,10,100 (built once, cached)',
  )
  .option('--schema <file>', 'BIRD dev_tables.json / train_tables.json: primary and foreign keys for --scales copies')
  .option(JSON_FLAGS, jsonHelp("every question's result"))
  .option('--html <file>', 'write a self-contained HTML report (tables, charts, every question; works offline)')
  .option(
    '--shard <i/n|auto>',
    'score only every n-th question, starting at the i-th (1-based); auto: from a Slurm array task (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shard-count); combine the shards with `ves-lens merge`',
  )
  .option('--shard-count <n>', "with --shard auto in a Kubernetes Indexed Job: the Job's completions (the number of shards)")
  .option('--resume', 'continue an interrupted or killed run from the checkpoint beside its --json FILE (or --html FILE)')
  .option(
    '--counterexamples <dir>',
    'for each EX-correct pair, prove it equivalent or look for a small database where gold and prediction differ (written to DIR); say which mismatches are EX-fragile (SQLite)',
  )
  .option('--counterexample-seconds <s>', 'search time for one EX-correct pair with --counterexamples', '3')
  .option('--no-progress', 'no progress bar')
  .addOption(
    new Option(
      '--gold-from <source>',
      "which gold to score against: the question file's SQL, the --gold file, or the prediction file's own gold_sql",
    ).choices(['questions', 'gold-file', 'predictions']),
  )
  .action(async (options) => {
    process.exitCode = await runEval(withJsonDestination(options));
  });
// SQLMorph's techniques: --techniques, --penalize-extra-columns, --embeddings* (cli/techniqueOptions.ts).
addTechniqueOptions(program.commands.find((command) => command.name() === 'eval')!);
addEngineOptions(program.commands.find((command) => command.name() === 'eval')!);
addDialectCheckOption(program.commands.find((command) => command.name() === 'eval')!);

program
  .command('compare')
  .description(
    "Compare eval reports of the same questions: every metric per run, each difference with a 95 % paired bootstrap interval, McNemar's exact p for EX, and what changed.",
  )
  .argument('<reports...>', 'two or more `eval --json` reports (the first is the baseline)')
  .option('--html <file>', 'write the comparison as a self-contained HTML report')
  .option(JSON_FLAGS, jsonHelp('the runs, deltas and ex_mcnemar_p'))
  .option('--seed <n>', 'seed of the bootstrap (the same seed gives the same intervals)')
  .option('--resamples <n>', 'bootstrap resamples (default 2000)')
  .option('--much <factor>', 'a time ratio that changes by this factor (intervals apart) is "much faster / slower" (default 2)')
  .action(async (reports, options) => {
    process.exitCode = await runCompare(reports, withJsonDestination(options));
  });

program
  .command('merge')
  .description('Combine the reports of `eval --shard 1/n` ... `n/n` into the report of one run over all questions.')
  .argument('<shards...>', 'the shard reports (`eval --shard i/n --json ...`), in any order')
  .option(JSON_FLAGS, jsonHelp('the merged report'))
  .option('--html <file>', 'write the merged HTML report')
  .action(async (shards, options) => {
    process.exitCode = await runMerge(shards, withJsonDestination(options));
  });

program
  .command('audit')
  .description(
    'Audit the gold SQL for annotators: plan cost, verified faster rewrites, index advice with measured gains, growth at scale, and faster correct predictions; a ranked list of gold worth another look.',
  )
  .requiredOption('--questions <file>', 'BIRD question file')
  .option('--db-root <dir>', 'folder holding <db_id>/<db_id>.sqlite (the SQLite engine, the default)')
  .option('--gold <file>', "gold SQL file (SQL<TAB>db_id a line); default: the questions' SQL field")
  .option(
    '--predictions <files...>',
    'prediction files (any format eval reads) or their `eval --json` reports: how many have a correct prediction at least 2× faster than the gold',
  )
  .option('--scales <list>', 'time the gold on copies of its database scaled by these factors, e.g. 1,10,100: how it grows')
  .option('--schema <file>', 'BIRD dev_tables.json / train_tables.json: primary and foreign keys for --scales copies')
  .option('--no-measure', 'skip the measurements of rewrites and indexes (plans and advice only)')
  .option(
    '--correctness',
    'check each gold on its data: row-order dependence (LIMIT without ORDER BY, ties, bare columns), float summation order, NULLs ranked first, numbers sorted as text, integer division, the clock, no rows, predictions that agree against it',
  )
  .option('--timeout <seconds>', 'time limit for one query', '30')
  .option('--max-rows <n>', 'rows one result may have', String(RUN_DEFAULTS.maxRows))
  .option('--top <n>', 'gold SQL listed in the terminal', '20')
  .option(JSON_FLAGS, jsonHelp('the whole audit'))
  .option('--html <file>', 'write the audit as a self-contained HTML report')
  .option('--resume', 'continue an interrupted or killed audit from the checkpoint beside its --json FILE (or --html FILE)')
  .option('--no-progress', 'no progress bar')
  .action(async (options) => {
    process.exitCode = await runAudit(withJsonDestination(options));
  });
// The cross-dialect gold check: --compare-gold, --compare-engine, --compare-db-url, --compare-db-layout (cli/auditCommand.ts).
addCompareGoldOptions(program.commands.find((command) => command.name() === 'audit')!);
addEngineOptions(program.commands.find((command) => command.name() === 'audit')!);
// --optimize, --scale, --optimize-budget (cli/auditOptimizeOption.ts).
addAuditOptimizeOptions(program.commands.find((command) => command.name() === 'audit')!);
addDialectCheckOption(program.commands.find((command) => command.name() === 'audit')!);

program
  .command('judge')
  .description(
    "Judge whether each prediction answers its question (ROSE's Prover/Refuter, or FLEX) with a chat model behind an OpenAI-compatible API, beside EX.",
  )
  .requiredOption('--questions <file>', 'BIRD question file (JSON list: question_id, db_id, question, evidence, SQL, difficulty)')
  .requiredOption('--predictions <file>', 'predictions, in any format `eval` reads')
  .option('--db-root <dir>', 'folder holding <db_id>/<db_id>.sqlite (the SQLite engine, the default)')
  .requiredOption('--endpoint <url>', 'base URL of an OpenAI-compatible chat completions API, e.g. https://api.openai.com/v1')
  .requiredOption('--model <name>', 'the model the endpoint serves, e.g. o3 or gpt-4o')
  .option('--api-key-env <var>', 'environment variable holding the API key (default: OPENAI_API_KEY if set; none for local servers)')
  .option('--gold <file>', "gold SQL file (SQL<TAB>db_id a line); default: the questions' SQL field")
  .addOption(
    new Option(
      '--gold-from <source>',
      "which gold: the question file's SQL, the --gold file, or the prediction file's own gold_sql",
    ).choices(['questions', 'gold-file', 'predictions']),
  )
  .addOption(
    new Option('--method <method>', 'rose: Prover, then Refuter with the gold; prover-only: the Prover alone; flex: one gold-anchored call')
      .choices(['rose', 'prover-only', 'flex'])
      .default('rose'),
  )
  .option('--concurrency <n>', 'pairs judged at the same time', '4')
  .option('--timeout <seconds>', 'time limit for each SQL query', '30')
  .option('--max-rows <n>', 'rows one result may have (bounds memory)', String(RUN_DEFAULTS.maxRows))
  .option(
    '--llm-timeout <seconds>',
    'time limit for one model request, its whole answer included (a server that trickles bytes too)',
    '300',
  )
  .option(
    '--deadline <seconds>',
    'time limit for the whole judging: when it passes the run stops (exit 2); an endpoint that fails 3 times in a row (refused, hanging, an HTML page) stops it at once',
    String(12 * 3600),
  )
  .option('--retries <n>', 'further attempts after a 429, a 5xx or a timeout (exponential backoff)', '4')
  .option('--temperature <t>', 'sampling temperature (default: not sent, as ROSE)')
  .option('--cache-dir <dir>', 'where replies are cached by (model, prompt) (default: ~/.cache/ves-lens/judge)')
  .option('--no-cache', 'neither read nor write cached replies')
  .option(JSON_FLAGS, jsonHelp("every question's result and verdict"))
  .option('--resume', 'continue an interrupted or killed run from the checkpoint beside its --json FILE')
  .option('--no-progress', 'no progress bar')
  .action(async (options) => {
    process.exitCode = await runJudge(withJsonDestination(options));
  });
addEngineOptions(program.commands.find((command) => command.name() === 'judge')!);
addDialectCheckOption(program.commands.find((command) => command.name() === 'judge')!);

program
  .command('agree')
  .description(
    "Agreement of verdicts with expert labels: Cohen's κ, accuracy, MCC, F1 and the confusion matrix (judge JSON, ROSE's eval_results.json, or an eval JSON for EX).",
  )
  .requiredOption('--labels <file>', 'expert labels: a JSON list of {question_id, predicted_sql, label} (e.g. ROSE-VEC rose-vec-bird.json)')
  .requiredOption('--verdicts <file>', "a `judge --json` report, ROSE's eval_results.json, or an `eval --json` report (EX)")
  .addOption(new Option('--use <verdict>', 'from a judge report: its judge score (default) or its EX').choices(['judge', 'ex']))
  .option(JSON_FLAGS, jsonHelp('the statistics and every mismatch'))
  .action(async (options) => {
    process.exitCode = await runAgree(withJsonDestination(options));
  });

/** A command that works on SQL: the query as an argument or every statement of --file, on one database (a SQLite file, or a PostgreSQL server). */
function sqlCommand(name: string, description: string, database: string) {
  return addEngineOptions(
    program
      .command(name)
      .description(description)
      .argument('[sql]', 'the query (or use --file)')
      .option('--db <file>', `${database}; with --engine postgres and --db-layout schema or database: the db_id`)
      .option('--file <file>', 'every statement of a .sql file')
      .option(JSON_FLAGS, jsonHelp('the result')),
  );
}

sqlCommand(
  'explain',
  "The query plan as an annotated tree (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN (FORMAT JSON)): scans, searches, sorts, joins, subqueries, with row counts and costs.",
  'the SQLite database (opened read-only)',
)
  .option('--vs <gold-sql>', 'compare with this (gold) query: both plans side by side, and what differs')
  .option(
    '--analyze',
    'PostgreSQL: run each query (read-only) and measure every step: actual rows and loops, time, buffers, misestimated rows (EXPLAIN (ANALYZE, BUFFERS))',
  )
  .option('--timeout <seconds>', 'with --analyze: time limit for running one query (default 30)')
  .action(async (sql, options) => {
    process.exitCode = await runExplain(sql, withJsonDestination(options));
  });

sqlCommand(
  'indexes',
  'Propose indexes for a query, check which ones the planner would use, and (--measure) time them on a temporary copy (PostgreSQL: on --scratch-url, rolled back).',
  'the SQLite database (never modified)',
)
  .option('--measure', 'time the query with each used index on a temporary copy of the database')
  .option(
    '--scratch-url <url>',
    'PostgreSQL: a throwaway copy of the databases (ves-lens load) where each index is created and rolled back; the --db-url server is never written',
  )
  .option('--timeout <seconds>', 'time limit for one run', '30')
  .action(async (sql, options) => {
    process.exitCode = await runIndexes(sql, withJsonDestination(options));
  });

sqlCommand(
  'hints',
  'Rewrite hints (VL001...) with exact ranges; --verify checks each rewrite on the database and measures it.',
  'the SQLite database (opened read-only)',
)
  .option('--verify', 'run original and rewrite: same rows (as a set and as a bag)? measured speed-up?')
  .option('--scales <list>', 'with --verify: also time each rewrite on copies of the database scaled by these factors, e.g. 1,10,100')
  .option('--schema <file>', 'BIRD dev_tables.json / train_tables.json: keys for the scaled copies')
  .option('--timeout <seconds>', 'time limit for one run', '30')
  .option('--max-rows <n>', 'rows one result may have', String(RUN_DEFAULTS.maxRows))
  .action(async (sql, options) => {
    process.exitCode = await runHints(sql, withJsonDestination(options));
  });

sqlCommand(
  'optimize',
  "Find faster SQL that returns the same rows: rewrite rules in combination (and optionally a chat model), each form kept only when it returns the original's rows on the database, no varied copy tells them apart, and it is measured faster (the whole repeat interval above 1) at the scale asked. One statement (--db, or --db-root with --db-id) or a BIRD file (--questions with --predictions or --gold).",
  'the SQLite database (opened read-only)',
)
  .option('--db-root <dir>', 'folder holding <db_id>/<db_id>.sqlite (with --db-id, or with --questions)')
  .option('--db-id <id>', 'with --db-root: the database of the statement')
  .option('--questions <file>', 'a BIRD question file: optimize every distinct statement of --predictions or --gold')
  .option('--predictions <file>', 'with --questions: the prediction file')
  .option('--gold <file>', 'with --questions: the gold file (SQL<TAB>db_id a line)')
  .option('--scale <n>', 'decide on a copy of each database with n times the rows (built once and cached; SQLite)', '1')
  .option('--schema <file>', 'BIRD dev_tables.json / train_tables.json: keys for the scaled copies')
  .option('--timeout <seconds>', 'time limit for one execution (an original past it is measured as a bound)', '60')
  .option('--budget <seconds>', 'the search of one statement: no new form is tried past it', '120')
  .option('--run-budget <seconds>', 'the whole run: no statement starts past it')
  .option('--depth <n>', 'rules applied in one chain', '3')
  .option('--candidates <n>', 'forms tried per statement at most', '40')
  .option('--counterexample-budget <seconds>', 'search for a varied copy where a rewrite differs, per finalist', '5')
  .option('--witness-dir <dir>', 'where counterexample databases are written (default: a temporary folder)')
  .option('--max-rows <n>', 'rows one result may have', String(RUN_DEFAULTS.maxRows))
  .option('--endpoint <url>', 'also ask an OpenAI-compatible chat endpoint for candidates (with --model)')
  .option('--model <name>', 'the chat model, with --endpoint')
  .option('--api-key-env <var>', 'environment variable holding the API key (default: OPENAI_API_KEY if set)')
  .option('--rounds <n>', 'with a model: rounds of proposals, each told what failed', '2')
  .option('--rules <ids>', 'only these rules (e.g. VL020,VL021), or none: only the chat model proposes')
  .option('--resume', 'with --json FILE: take the statements an interrupted run finished from the checkpoint beside it')
  .option('--no-progress', 'no progress lines')
  .action(async (sql, options) => {
    process.exitCode = await runOptimizeCommand(sql, withJsonDestination(options));
  });

program
  .command('rerank')
  .description(
    'Order candidate SQLs for one question by plan cost, executable ones first (cost-aware re-ranking); with --questions, pick one of K candidates for every question and write a prediction file.',
  )
  .option(
    '--db <file>',
    'one question: the SQLite database (opened read-only); with --engine postgres and a schema or database layout: the db_id',
  )
  .option(
    '--candidates <file>',
    'one question: a .sql file (one candidate a statement), a JSON list, or one SQL a line; with --questions: a JSON list of {question_id, candidates: [SQL, ...]}',
  )
  .option('--questions <file>', 'every question of this BIRD question file (with --db-root and --candidates or --predictions)')
  .option('--db-root <dir>', 'with --questions: folder holding <db_id>/<db_id>.sqlite')
  .option(
    '--predictions <files...>',
    "with --questions: K prediction files, candidate k of a question is file k's prediction (the first: e.g. greedy decoding)",
  )
  .addOption(
    new Option('--by <cost>', 'estimate: row-aware estimate, then rule cost; rule: rule cost alone (SCAN +100, temp B-tree +50, SEARCH 0)')
      .choices(['estimate', 'rule'])
      .default('estimate'),
  )
  .option('--out <file>', 'with --questions: write the picks as a prediction file (official format) for eval')
  .option('--measure', 'with --questions: time every runnable candidate; Spearman ρ of each cost against the time')
  .option('--no-progress', 'no progress bar')
  .option('--timeout <seconds>', 'time limit for running one candidate', '30')
  .option('--max-rows <n>', 'rows one candidate may return', String(RUN_DEFAULTS.maxRows))
  .option(JSON_FLAGS, jsonHelp('the ranking'))
  .action(async (options) => {
    process.exitCode = await runRerank(withJsonDestination(options));
  });
addEngineOptions(program.commands.find((command) => command.name() === 'rerank')!);

program
  .command('scale')
  .description(
    'Write a copy of a database with N times the rows of every table, keys shifted per replica so key joins grow exactly N times.',
  )
  .argument('<db>', 'the SQLite database to copy (opened read-only, never modified)')
  .requiredOption('--factor <n>', 'rows multiplier: an integer of at least 1')
  .requiredOption('--out <file>', 'where to write the copy (built beside it, renamed into place when complete)')
  .option('--schema <file>', 'BIRD dev_tables.json / train_tables.json: its primary and foreign keys are shifted too')
  .option('--db-id <id>', 'the --schema entry to use (default: the file name without .sqlite)')
  .option('--overwrite', 'replace --out if it exists')
  .option(JSON_FLAGS, jsonHelp('the report'))
  .option('--no-progress', 'no progress bar')
  .addOption(
    new Option('--engine <engine>', 'scale writes SQLite files only (postgres is refused, with what to do instead)').choices([
      'sqlite',
      'postgres',
    ]),
  )
  .action(async (db, options) => {
    process.exitCode = await runScale(db, withJsonDestination(options));
  });

program
  .command('load')
  .description(
    'Build a PostgreSQL copy of BIRD SQLite databases on which the official PostgreSQL gold runs: names as the official dump has them, lossless types, keys and indexes.',
  )
  .requiredOption('--from <db-root>', 'folder holding <db_id>/<db_id>.sqlite (opened read-only)')
  .requiredOption(
    '--to <url>',
    'postgresql://user@host:port/database (libpq environment variables fill what it leaves out; created if missing), or mysql://user@host:port/BIRD (every table in that one database, as the official MySQL dump)',
  )
  .option('--db <ids>', 'comma-separated db_ids to load (default: every database under --from)')
  .addOption(
    new Option(
      '--layout <layout>',
      'one-database: every table in schema public, as the official dump; schema: a schema per db_id; database: a database per db_id',
    )
      .choices(['one-database', 'schema', 'database'])
      .default('one-database'),
  )
  .option('--replace', 'drop and reload the tables of these databases where the target has them (refused otherwise)')
  .option(JSON_FLAGS, jsonHelp('the report (tables, types, notes)'))
  .option('--no-progress', 'no progress bar')
  .action(async (options) => {
    process.exitCode = await runLoad(withJsonDestination(options));
  });

// `--json [file]` took a query or a file the command reads: refused before any work (cli/jsonOption.ts).
program.hook('preAction', (_program, command) => {
  checkJsonValue(command, process.argv);
  saySqliteBuild();
});
// Every command's help ends with an example (cli/helpExamples.ts).
addHelpExamples(program);

// Ctrl-C and SIGTERM remove this process's temporaries; eval, judge and audit first write what they finished (cli/interrupt.ts).
installSignalHandlers();

let finished = false;

function fail(error: unknown): void {
  process.exitCode = reportFailure(error, { debug, write: (text) => process.stderr.write(text) });
}

// A closed pipe (`ves-lens eval ... | head`) ends the output, not in a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.done);
    else fail(error);
  });
}
// Whatever escapes the command's own promise is a bug: said, with exit 1, never a bare stack trace.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    finished = true;
    fail(error);
    process.exit(process.exitCode);
  });
}

// Node ends the process when nothing is left to wait for: a command whose work never called back (a native
// call that never returned) would exit 0 silently. Say so instead.
process.on('beforeExit', () => {
  if (finished) return;
  finished = true;
  process.stderr.write(
    `${pc.red('unexpected error')} (a bug in ${TOOL_NAME}; please report it): the command stopped before it finished (a database call never returned)\n`,
  );
  process.exitCode = EXIT.bug;
});

program
  .parseAsync(process.argv)
  .catch(fail)
  .finally(() => {
    finished = true;
  });
