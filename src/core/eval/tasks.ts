import * as fs from 'fs';
import * as path from 'path';
import { GoldFile } from '../bird/gold';
import { PredictionFile } from '../bird/predictions';
import { InputProblem } from '../bird/problems';
import { Question } from '../bird/questions';

/** One question to score: its gold, its prediction (if the file has one) and where both come from. */
export interface EvalTask {
  question: Question;
  goldSql?: string;
  predictedSql?: string;
  /** Why the task cannot be scored as usual (no prediction, no gold), said in its result. */
  missing?: string;
  notes: string[];
}

/** BIRD's layout: `<db_root>/<db_id>/<db_id>.sqlite`. */
export function databasePath(dbRoot: string, dbId: string): string {
  return path.join(dbRoot, dbId, `${dbId}.sqlite`);
}

export function databaseExists(dbRoot: string, dbId: string): boolean {
  return fs.existsSync(databasePath(dbRoot, dbId));
}

/**
 * Pairs every question with its gold and prediction. Official prediction objects and line files pair by
 * position (prediction i answers question i, keys ignored), as the official scripts do; lists that carry
 * question_id pair by id. The prediction always runs on the question's database, as mini_dev does.
 */
export function buildTasks(
  questions: Question[],
  predictions: PredictionFile,
  gold: GoldFile | undefined,
  problems: InputProblem[],
): EvalTask[] {
  const byId = new Map<string, number>();
  if (predictions.pairing === 'question_id') {
    predictions.predictions.forEach((prediction, i) => {
      const key = String(prediction.questionId);
      if (byId.has(key)) {
        problems.push({ file: predictions.file, where: prediction.where, message: `question_id ${key} appears again; the first one is used` });
      } else byId.set(key, i);
    });
  } else if (predictions.predictions.length > questions.length) {
    problems.push({
      file: predictions.file,
      message: `${predictions.predictions.length} predictions for ${questions.length} questions; the last ${predictions.predictions.length - questions.length} are ignored`,
    });
  }
  if (gold && gold.entries.length !== questions.length) {
    problems.push({ file: gold.file, message: `${gold.entries.length} gold lines for ${questions.length} questions; gold pairs with questions by position` });
  }

  return questions.map((question): EvalTask => {
    const notes: string[] = [];
    const position = question.index;
    const predictionIndex = predictions.pairing === 'question_id' ? byId.get(String(question.questionId)) : position;
    const prediction = predictionIndex === undefined ? undefined : predictions.predictions[predictionIndex];
    if (prediction?.dbId && prediction.dbId !== question.dbId) {
      notes.push(`prediction names database ${prediction.dbId}; it runs on the question's ${question.dbId}, as mini_dev does`);
    }

    let goldSql = question.sql;
    if (gold) {
      const entry = gold.entries[position];
      if (entry) {
        goldSql = entry.sql;
        if (entry.dbId !== question.dbId) notes.push(`gold line ${entry.line} names database ${entry.dbId}, the question ${question.dbId}`);
      } else goldSql = undefined;
    }

    let missing: string | undefined;
    if (goldSql === undefined) missing = gold ? `no gold SQL at line ${position + 1} of ${gold.file}` : 'the question has no "SQL" field and no --gold file was given';
    else if (!prediction) missing = `no prediction for this question in ${predictions.file}`;
    return { question, goldSql, predictedSql: prediction?.sql, missing, notes };
  });
}
