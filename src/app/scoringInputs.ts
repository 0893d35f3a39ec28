import * as fs from 'fs';
import { GoldFile, loadGold } from '../core/bird/gold';
import { loadPredictions, PredictionFile } from '../core/bird/predictions';
import { InputProblem } from '../core/bird/problems';
import { loadQuestions, Question, QuestionFile } from '../core/bird/questions';
import { goldShift, predictionShift, shiftText } from '../core/bird/shiftedFile';
import { buildTasks, EvalTask, GOLD_SOURCES, GoldSource } from '../core/bird/tasks';
import { Dialect, DialectInput, DIALECT_NAMES, dialectMismatch, dialectMismatchText } from '../core/sql/dialect';
import { RunRefused } from './runRefused';

/** The inputs `eval` and `judge` share: a question file, predictions, the gold, and the database folder. */
export interface ScoringInputOptions {
  questions: string;
  predictions: string;
  gold?: string;
  goldFrom?: string;
  /** Absent when the databases are on a server (--db-url). */
  dbRoot?: string;
  /** `on` (default): a gold or predictions of another dialect than the engine's is refused; `off`: scored anyway. */
  dialectCheck?: string;
}

export interface ScoringInputs {
  questionFile: QuestionFile;
  predictionFile: PredictionFile;
  goldFile?: GoldFile;
  goldFrom: GoldSource;
  problems: InputProblem[];
  tasks: EvalTask[];
}

export function parseGoldSource(text: string): GoldSource {
  if (!GOLD_SOURCES.includes(text as GoldSource))
    throw new RunRefused('--gold-from', `expected one of ${GOLD_SOURCES.join(', ')}, got ${JSON.stringify(text)}`);
  return text as GoldSource;
}

/** Checks the options that need no file read (so a mistake stops before any work). */
export function checkScoringOptions(options: ScoringInputOptions): GoldSource | undefined {
  const goldFrom = options.goldFrom === undefined ? undefined : parseGoldSource(options.goldFrom);
  if (goldFrom === 'gold-file' && !options.gold) throw new RunRefused('--gold-from gold-file', 'give the gold file with --gold');
  if (options.dbRoot !== undefined && (!fs.existsSync(options.dbRoot) || !fs.statSync(options.dbRoot).isDirectory()))
    throw new RunRefused('--db-root', `not a folder: ${options.dbRoot}`);
  return goldFrom;
}

/** Reads the question, prediction and gold files and pairs them into tasks, as the official scripts pair them. */
export function loadScoringInputs(options: ScoringInputOptions, goldFromOption: GoldSource | undefined): ScoringInputs {
  const questionFile = loadQuestions(options.questions);
  const dbIds = new Set(questionFile.questions.map((q) => q.dbId).filter(Boolean));
  const predictionFile = loadPredictions(options.predictions, { dbIds });
  const goldFile = options.gold ? loadGold(options.gold) : undefined;
  if (goldFromOption === 'predictions' && !predictionFile.goldField) {
    throw new RunRefused('--gold-from predictions', `${options.predictions} carries no gold field (gold_sql) beside its predictions`);
  }
  const goldFrom: GoldSource = goldFromOption ?? (goldFile ? 'gold-file' : 'questions');
  const problems: InputProblem[] = [...questionFile.problems, ...predictionFile.problems, ...(goldFile?.problems ?? [])];
  // A file shifted by a lost or added line would score every later question against its neighbour's line.
  if (goldFrom === 'gold-file') refuseShiftedGold(questionFile.questions, goldFile, options.gold);
  const predictionsShifted = predictionShift(questionFile.questions, predictionFile);
  if (predictionsShifted)
    problems.push({
      file: options.predictions,
      headline: true,
      message: `the predictions are ${shiftText(predictionsShifted, 'prediction', questionFile.questions)} (their db_ids say so): these scores are not the file's`,
    });
  const tasks = buildTasks(questionFile.questions, predictionFile, goldFile, problems, { goldFrom, questionsFile: options.questions });
  return { questionFile, predictionFile, goldFile, goldFrom, problems, tasks };
}

/** The `inputs` block both reports open with: which files were read, how they were paired, which gold was used. */
export function scoringInputsJson(options: ScoringInputOptions, inputs: Pick<ScoringInputs, 'predictionFile' | 'goldFrom'>) {
  return {
    questions: options.questions,
    predictions: options.predictions,
    prediction_format: inputs.predictionFile.format,
    pairing: inputs.predictionFile.pairing,
    gold: options.gold ?? null,
    gold_from: inputs.goldFrom,
    db_root: options.dbRoot ?? null,
  };
}

/** What to pass to run a dialect's SQL. */
const ENGINE_OPTIONS: Record<Dialect, string> = {
  sqlite: '--engine sqlite --db-root <folder of <db_id>/<db_id>.sqlite>',
  postgres:
    '--engine postgres (with --db-url postgresql://user@host:port/database, or without it the embedded PostgreSQL loaded from --db-root)',
  mysql: '--engine mysql --db-url mysql://user@host:port/database',
};

/**
 * --dialect-check (on by default): the gold and the predictions must read as the engine's SQL dialect
 * (core/sql/dialect.ts), else the run is refused with what to pass instead; `off` scores them anyway.
 */
export function checkDialects(options: ScoringInputOptions, inputs: ScoringInputs, engine: string): void {
  const goldLabel =
    inputs.goldFrom === 'gold-file'
      ? `--gold ${options.gold}`
      : inputs.goldFrom === 'questions'
        ? `the SQL of --questions ${options.questions} (the gold)`
        : `the gold in --predictions ${options.predictions}`;
  refuseOtherDialect(options.dialectCheck, engine, pairedQueries(inputs.tasks, goldLabel, `--predictions ${options.predictions}`));
}

/** The tasks' gold and predicted SQL, each side under its label, as the dialect check reads them. */
export function pairedQueries(tasks: readonly EvalTask[], goldLabel: string, predictionsLabel: string): DialectInput[] {
  return [
    { label: goldLabel, queries: tasks.map((task) => task.goldSql ?? '') },
    { label: predictionsLabel, queries: tasks.map((task) => task.predictedSql ?? '') },
  ];
}

/**
 * The first of `inputs` that reads as another dialect than the engine's (its SQL would fail or differ there, each
 * pair scored 0), said with what to do `instead` (the face's wording, given the dialect read and the engine's
 * name); undefined when every input reads as the engine's.
 */
export function otherDialectText(
  engine: string,
  inputs: readonly DialectInput[],
  instead: (read: Dialect, engineName: string) => string,
): string | undefined {
  const mismatch = dialectMismatch(engine, inputs);
  return mismatch && dialectMismatchText(mismatch, instead(mismatch.reading.dialect, DIALECT_NAMES[mismatch.engine]));
}

/** The refusal of --dialect-check (unless `off`): the first input that reads as another dialect than the engine's. */
export function refuseOtherDialect(check: string | undefined, engine: string, inputs: readonly DialectInput[]): void {
  if (check !== undefined && check !== 'on' && check !== 'off')
    throw new RunRefused('--dialect-check', `expected on or off, got ${JSON.stringify(check)}`);
  if (check === 'off') return;
  const text = otherDialectText(
    engine,
    inputs,
    (read, engineName) => `pass ${ENGINE_OPTIONS[read]}, or the ${engineName} file; --dialect-check off runs it on ${engineName} anyway`,
  );
  if (text) throw new RunRefused('--engine', text, text);
}

/** A --gold file shifted against the question file's own SQL is refused (it would pair questions with others' gold). */
export function refuseShiftedGold(questions: readonly Question[], gold: GoldFile | undefined, goldOption: string | undefined): void {
  const shifted = gold ? goldShift(questions, gold) : undefined;
  if (shifted) {
    const reason = `${goldOption} is ${shiftText(shifted, 'gold line', questions)}: fix the file, or use the question file's own SQL (without --gold, or --gold-from questions)`;
    throw new RunRefused('--gold', reason, `--gold ${reason}`);
  }
}
