import * as fs from 'fs';
import { GoldFile, loadGold } from '../core/bird/gold';
import { loadPredictions, PredictionFile } from '../core/bird/predictions';
import { InputProblem } from '../core/bird/problems';
import { loadQuestions, QuestionFile } from '../core/bird/questions';
import { buildTasks, EvalTask, GOLD_SOURCES, GoldSource } from '../core/bird/tasks';
import { quoted, UsageError } from './common';

/** The inputs `eval` and `judge` share: a question file, predictions, the gold, and the database folder. */
export interface ScoringInputOptions {
  questions: string;
  predictions: string;
  gold?: string;
  goldFrom?: string;
  /** Absent when the databases are on a server (--db-url). */
  dbRoot?: string;
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
    throw new UsageError(`--gold-from: expected one of ${GOLD_SOURCES.join(', ')}, got ${quoted(text)}`);
  return text as GoldSource;
}

/** Checks the options that need no file read (so a mistake stops before any work). */
export function checkScoringOptions(options: ScoringInputOptions): GoldSource | undefined {
  const goldFrom = options.goldFrom === undefined ? undefined : parseGoldSource(options.goldFrom);
  if (goldFrom === 'gold-file' && !options.gold) throw new UsageError('--gold-from gold-file: give the gold file with --gold');
  if (options.dbRoot !== undefined && (!fs.existsSync(options.dbRoot) || !fs.statSync(options.dbRoot).isDirectory()))
    throw new UsageError(`--db-root: not a folder: ${options.dbRoot}`);
  return goldFrom;
}

/** Reads the question, prediction and gold files and pairs them into tasks, as the official scripts pair them. */
export function loadScoringInputs(options: ScoringInputOptions, goldFromOption: GoldSource | undefined): ScoringInputs {
  const questionFile = loadQuestions(options.questions);
  const dbIds = new Set(questionFile.questions.map((q) => q.dbId).filter(Boolean));
  const predictionFile = loadPredictions(options.predictions, { dbIds });
  const goldFile = options.gold ? loadGold(options.gold) : undefined;
  if (goldFromOption === 'predictions' && !predictionFile.goldField) {
    throw new UsageError(`--gold-from predictions: ${options.predictions} carries no gold field (gold_sql) beside its predictions`);
  }
  const goldFrom: GoldSource = goldFromOption ?? (goldFile ? 'gold-file' : 'questions');
  const problems: InputProblem[] = [...questionFile.problems, ...predictionFile.problems, ...(goldFile?.problems ?? [])];
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
