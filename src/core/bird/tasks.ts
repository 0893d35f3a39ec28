import { GoldFile } from './gold';
import { PredictionFile } from './predictions';
import { InputProblem } from './problems';
import { Question } from './questions';
import { inputWording } from '../text/inputWording';

/** One question to score: its gold, its prediction (if the file has one) and where both come from. */
export interface EvalTask {
  question: Question;
  goldSql?: string;
  predictedSql?: string;
  /** Why the task cannot be scored as usual (no prediction, no gold), said in its result. */
  missing?: string;
  notes: string[];
}

/** Where the gold SQL comes from: the question file's `SQL`, the --gold file, or the prediction file's own gold field. */
export type GoldSource = 'questions' | 'gold-file' | 'predictions';

export const GOLD_SOURCES: readonly GoldSource[] = ['questions', 'gold-file', 'predictions'];

/** How a report names a gold source. */
export function describeGoldSource(source: GoldSource, gold?: GoldFile, predictions?: PredictionFile): string {
  if (source === 'gold-file') return `the gold file ${gold?.file ?? ''}`.trim();
  if (source === 'predictions') return `the prediction file's ${predictions?.goldField ?? 'gold_sql'} field`;
  return "the question file's SQL field";
}

/** Gold texts that differ only in spacing or a final semicolon run the same query. */
function sameSqlText(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().replace(/\s*;$/, '');
  return norm(a) === norm(b);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Up to `limit` items of a list, then "and N more": for headline problems that must stay short. */
function someOf(items: readonly string[], limit = 5): string {
  return items.length <= limit ? items.join(', ') : `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;
}

/**
 * Pairs every question with its gold and prediction. Official prediction objects and line files pair by
 * position (prediction i answers question i, keys ignored), as the official scripts do; lists that carry
 * question_id pair by id. The prediction always runs on the question's database, as mini_dev does.
 * Whatever explains many zeros at once (files of different lengths, predictions or gold for other databases,
 * another gold carried by the prediction file) is added to `problems` as a headline problem.
 */
export function buildTasks(
  questions: Question[],
  predictions: PredictionFile,
  gold: GoldFile | undefined,
  problems: InputProblem[],
  options: { goldFrom?: GoldSource; questionsFile?: string } = {},
): EvalTask[] {
  const goldFrom: GoldSource = options.goldFrom ?? (gold ? 'gold-file' : 'questions');
  const headline = (file: string, message: string) => problems.push({ file, message, headline: true });
  const q = questions.length;
  const p = predictions.predictions.length;

  const byId = new Map<string, number>();
  if (predictions.pairing === 'question_id') {
    let repeated = 0;
    predictions.predictions.forEach((prediction, i) => {
      const key = String(prediction.questionId);
      if (byId.has(key)) {
        repeated++;
        problems.push({
          file: predictions.file,
          where: prediction.where,
          message: `question_id ${key} appears again; the first one is used`,
        });
      } else byId.set(key, i);
    });
    const known = new Set(questions.map((question) => String(question.questionId)));
    const unknown = [...byId.keys()].filter((id) => !known.has(id));
    const answered = questions.filter((question) => byId.has(String(question.questionId))).length;
    if (answered === 0 && p > 0) {
      headline(
        predictions.file,
        `none of the ${plural(p, 'prediction')}' question_id is in the question file: is it the question file they were made for? Every question scores 0 (no prediction)`,
      );
    } else {
      if (answered < q)
        headline(
          predictions.file,
          `${p} predictions for ${q} questions: paired by question_id, ${plural(q - answered, 'question has', 'questions have')} no prediction (scored 0 as prediction errors)`,
        );
      if (unknown.length)
        headline(
          predictions.file,
          `${plural(unknown.length, 'prediction names a question_id', 'predictions name question_ids')} the question file does not have (ignored): ${someOf(unknown)}`,
        );
    }
    if (repeated)
      headline(
        predictions.file,
        `${plural(repeated, 'question_id appears', 'question_ids appear')} more than once; the first of each is used`,
      );
  } else if (p === 0) {
    headline(
      predictions.file,
      `no predictions (the file is ${predictions.empty ? 'empty' : 'an empty list or object'}) for ${q} questions: every question scores 0 as a prediction error`,
    );
  } else if (p < q) {
    headline(
      predictions.file,
      `${p} predictions for ${q} questions: paired by position, ${plural(q - p, 'question has', 'questions have')} no prediction (scored 0 as prediction errors)`,
    );
  } else if (p > q) {
    headline(
      predictions.file,
      `${p} predictions for ${q} questions: paired by position, the last ${plural(p - q, 'prediction is', 'predictions are')} ignored`,
    );
  }
  if (gold && gold.entries.length !== q) {
    const g = gold.entries.length;
    headline(
      gold.file,
      g < q
        ? `${g} gold lines for ${q} questions: paired by position, ${plural(q - g, 'question has', 'questions have')} no gold line${goldFrom === 'gold-file' ? ' (scored 0 as gold errors)' : ''}`
        : `${g} gold lines for ${q} questions: paired by position, the last ${plural(g - q, 'line is', 'lines are')} ignored`,
    );
  }
  if (goldFrom === 'predictions' && !predictions.goldField) {
    headline(predictions.file, 'the prediction file carries no gold (gold_sql) field: every question scores 0 as a gold error');
  }

  const predictionDbMismatch: string[] = [];
  const goldDbMismatch: string[] = [];
  const carriedGoldDiffers: string[] = [];
  let carriedGold = 0;
  const noDbId: string[] = [];
  const tasks = questions.map((question): EvalTask => {
    const notes: string[] = [];
    const position = question.index;
    const predictionIndex = predictions.pairing === 'question_id' ? byId.get(String(question.questionId)) : position;
    const prediction = predictionIndex === undefined ? undefined : predictions.predictions[predictionIndex];
    const goldEntry = gold?.entries[position];

    let scored = question;
    if (!question.dbId) {
      const dbId = goldEntry?.dbId;
      if (dbId) {
        scored = { ...question, dbId };
        notes.push(`no db_id in the question file: database ${dbId} from gold line ${goldEntry.line}`);
      } else noDbId.push(String(question.questionId));
    }
    if (prediction?.dbId && scored.dbId && prediction.dbId !== scored.dbId) {
      notes.push(`prediction names database ${prediction.dbId}; it runs on the question's ${scored.dbId}, as mini_dev does`);
      predictionDbMismatch.push(`${prediction.where} names ${prediction.dbId}, question ${question.questionId} is on ${scored.dbId}`);
    }
    if (goldEntry && scored.dbId && goldEntry.dbId !== scored.dbId) {
      notes.push(`gold line ${goldEntry.line} names database ${goldEntry.dbId}, the question ${scored.dbId}`);
      goldDbMismatch.push(`line ${goldEntry.line} names ${goldEntry.dbId}, question ${question.questionId} is on ${scored.dbId}`);
    }

    const fromQuestions = question.sql;
    const fromGoldFile = goldEntry?.sql;
    const fromPredictions = prediction?.goldSql;
    const goldSql = goldFrom === 'predictions' ? fromPredictions : goldFrom === 'gold-file' ? fromGoldFile : fromQuestions;
    if (fromPredictions !== undefined) {
      carriedGold++;
      const other = goldFrom === 'predictions' ? (gold ? fromGoldFile : fromQuestions) : goldSql;
      if (other !== undefined && !sameSqlText(fromPredictions, other)) {
        carriedGoldDiffers.push(String(question.questionId));
        notes.push(
          goldFrom === 'predictions'
            ? `the prediction file's gold differs from ${gold ? `gold line ${goldEntry?.line}` : "the question file's SQL"}; scored against the prediction file's`
            : `the prediction file's gold differs from the gold used; ${inputWording().scoreAgainstPredictionGold}: ${fromPredictions}`,
        );
      }
    }

    let missing: string | undefined;
    if (!prediction && (goldSql !== undefined || goldFrom === 'predictions')) {
      // No prediction is the prediction's failure, whichever gold there would have been.
      missing = `no prediction for this question in ${predictions.file}`;
      return { question: scored, goldSql: goldSql ?? fromGoldFile ?? fromQuestions ?? '', missing, notes };
    }
    if (goldSql === undefined) {
      missing =
        goldFrom === 'predictions'
          ? `no gold field for this question in ${predictions.file}`
          : goldFrom === 'gold-file'
            ? `no gold SQL at line ${position + 1} of ${gold?.file}`
            : `the question has no "SQL" field and ${inputWording().noGoldFile}`;
    }
    return { question: scored, goldSql, predictedSql: prediction?.sql, missing, notes };
  });

  const paired = tasks.filter((t) => t.predictedSql !== undefined).length;
  if (predictionDbMismatch.length) {
    headline(
      predictions.file,
      `${predictionDbMismatch.length} of ${paired} predictions name another database than their question (first: ${predictionDbMismatch[0]}): the file may be for another question set; each runs on its question's database, as mini_dev does`,
    );
  }
  if (gold && goldDbMismatch.length) {
    headline(
      gold.file,
      `${goldDbMismatch.length} of ${Math.min(q, gold.entries.length)} gold lines name another database than their question (first: ${goldDbMismatch[0]}): is it the gold file of this question file?`,
    );
  }
  if (carriedGold > 0 && carriedGoldDiffers.length) {
    const field = predictions.goldField ?? 'gold_sql';
    const used = describeGoldSource(goldFrom, gold, predictions);
    const choice = inputWording().predictionGoldChoice;
    headline(
      predictions.file,
      goldFrom === 'predictions'
        ? `scored against the prediction file's ${field}, which differs from ${gold ? 'the gold file' : "the question file's SQL"} for ${plural(carriedGoldDiffers.length, 'question')} (question ${someOf(carriedGoldDiffers)})`
        : `the prediction file carries its own gold (${field}) for ${plural(carriedGold, 'question')}; it differs from the gold used ` +
            `(${used}) for ${carriedGoldDiffers.length} (question ${someOf(carriedGoldDiffers)}). Scores use ${used}${choice ? `; ${choice}` : ''}`,
    );
  }
  if (noDbId.length) {
    headline(
      options.questionsFile ?? 'question file',
      `${plural(noDbId.length, 'question has', 'questions have')} no db_id and no gold line naming a database: skipped (question ${someOf(noDbId)})`,
    );
  }
  return tasks;
}
