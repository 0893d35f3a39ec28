/**
 * The rerank use case (`ves-lens rerank`, cli/planCommands.ts and cli/rerankBatchCommand.ts): of K candidate SQL
 * statements the cheapest that runs, by plan cost (the row-aware estimate or the planner's cost, then the rule cost;
 * or the rule cost alone). For one question: its candidates ranked on an open database (`rankCandidates`, drawn by
 * `rankedLines`). For a question file: `prepareRerankRun` reads the questions and their candidates (a candidate
 * list, or one prediction file per candidate) and asks what runs the SQL; `runRerankRun` picks one candidate per
 * question and returns the report with the picks as a prediction file `eval` scores.
 */
import * as path from 'path';
import Table from 'cli-table3';
import pc from 'picocolors';
import { readTextFile } from '../core/bird/jsonFile';
import { loadPredictions } from '../core/bird/predictions';
import type { InputProblem } from '../core/bird/problems';
import { loadQuestions } from '../core/bird/questions';
import type { DatabaseConnection } from '../core/db/engine';
import { DatabaseSource, EngineDescription } from '../core/db/source';
import { engineLine } from '../core/text/engineText';
import { RankedCandidate, RerankBy, rerankCandidates } from '../core/plan/rerank';
import {
  candidatesFromList,
  candidatesFromPredictionFiles,
  predictionObject,
  QuestionCandidates,
  RerankReport,
  rerankQuestions,
} from '../core/plan/rerankBatch';
import { compactNumber, planLines, plannerCostText } from '../core/report/planText';
import type { SchemaInfo } from '../core/sql/catalog';
import { splitStatements } from '../core/sql/statements';
import { TABLE_STYLE } from '../core/text/tableStyle';
import { RunRefused, serverUnreachable } from './runRefused';

/** How long a candidate may run, and how many rows it may return. */
export interface RerankLimits {
  timeoutMs: number;
  maxRows: number;
}

/** One question's candidates from a .sql file (one per statement) or any prediction-file format; `dbId` pairs official-format lines. */
export function readCandidateFile(file: string, dbId: string): string[] {
  const candidates =
    path.extname(file).toLowerCase() === '.sql'
      ? splitStatements(readTextFile(file, 'candidate file')).map((s) => s.text)
      : loadPredictions(file, { what: 'candidate file', dbIds: new Set([dbId]) }).predictions.map((p) => p.sql);
  if (candidates.length === 0) throw new RunRefused('--candidates', `${file} holds no candidate SQL`);
  return candidates;
}

/** One question's candidates, cheapest runnable first (those that do not run last, each with why). */
export async function rankCandidates(
  database: { db: DatabaseConnection; schema: SchemaInfo },
  candidates: readonly string[],
  settings: { limits: RerankLimits; by: RerankBy },
): Promise<RankedCandidate[]> {
  return rerankCandidates(database.db, candidates, database.schema, settings.limits, settings.by);
}

/** The ranking as the terminal shows it: a table of the candidates, then the cheapest runnable one's plan. */
export function rankedLines(ranked: readonly RankedCandidate[]): string[] {
  // A planner's plans are ranked by its own cost (rerankCandidates' estimate): the column says so.
  const planned = ranked.some((c) => c.plan.cost.totalCost !== undefined);
  const table = new Table({
    head: ['rank', '#', 'runs', 'rule', planned ? 'planner cost' : 'row visits', 'rows', 'SQL'],
    style: TABLE_STYLE,
    colAligns: ['right', 'right', 'left', 'right', 'right', 'right', 'left'],
  });
  ranked.forEach((c, rank) => {
    table.push([
      String(rank + 1),
      String(c.index),
      c.executable ? pc.green('yes') : pc.red('no'),
      c.executable ? String(c.plan.cost.rule) : '-',
      c.executable ? (planned ? plannerCostText(c.plan.cost.work) : compactNumber(c.plan.cost.work)) : '-',
      c.rows === undefined ? '-' : String(c.rows),
      (c.executable ? c.sql : `${c.sql}\n${pc.red(c.error ?? '')}`).replace(/\s+/g, ' ').slice(0, 90),
    ]);
  });
  const best = ranked[0];
  if (!best?.executable) return [table.toString()];
  return [table.toString(), '', `${pc.bold('cheapest executable candidate')} (#${best.index}):`, ...planLines(best.plan)];
}

export interface RerankRunSettings {
  /** The question file. */
  questions: string;
  /** A candidate list: `{question_id, candidates: [SQL, ...]}` entries, or `{ "<question_id>": [SQL, ...] }`. */
  candidates?: string;
  /** Or one prediction file per candidate (the first: the greedy one). */
  predictions: readonly string[];
}

export interface PreparedRerankRun {
  source: DatabaseSource;
  /** Each question with its candidates, in question order. */
  sets: QuestionCandidates[];
  /** What the inputs lack (questions without candidates, unreadable entries). */
  problems: InputProblem[];
  /** The most candidates a question has. */
  k: number;
  engine: EngineDescription;
  /** What runs the SQL, in one line. */
  engineLine: string;
}

/**
 * Reads the questions and their candidates (a file that cannot be used is an InputFileError naming it), then asks
 * what runs the SQL: a server that cannot be reached is refused here, naming --db-url, before any question.
 */
export async function prepareRerankRun(settings: RerankRunSettings, source: DatabaseSource): Promise<PreparedRerankRun> {
  const questionFile = loadQuestions(settings.questions);
  const problems: InputProblem[] = [...questionFile.problems];
  const dbIds = new Set(questionFile.questions.map((q) => q.dbId).filter(Boolean));
  const sets = settings.candidates
    ? candidatesFromList(settings.candidates, questionFile.questions, problems)
    : candidatesFromPredictionFiles(
        settings.predictions.map((file) => loadPredictions(file, { dbIds, what: 'candidate prediction file' })),
        questionFile.questions,
        problems,
      );
  const engine = await source.describe().catch((error: Error) => {
    throw serverUnreachable(source, '--db-url', error);
  });
  return { source, sets, problems, k: Math.max(0, ...sets.map((s) => s.candidates.length)), engine, engineLine: engineLine(engine) };
}

export interface RerankRunHooks {
  /** After each question, with how many are done. */
  onProgress?: (done: number) => void;
}

export interface FinishedRerankRun {
  report: RerankReport;
  /** The picks as an official prediction file, `{"0": "SQL\t----- bird -----\tdb_id", ...}` in question order. */
  predictions: Record<string, string>;
}

/** Picks one candidate per question (with `measure`, times every runnable one and correlates each cost with the time). */
export async function runRerankRun(
  run: PreparedRerankRun,
  settings: { by: RerankBy; limits: RerankLimits; measure?: boolean },
  hooks: RerankRunHooks = {},
): Promise<FinishedRerankRun> {
  const report = await rerankQuestions(run.sets, {
    source: run.source,
    by: settings.by,
    ...settings.limits,
    measure: settings.measure,
    onProgress: hooks.onProgress,
  });
  return { report, predictions: predictionObject(report) };
}
