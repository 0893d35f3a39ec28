import { InputFileError, InputProblem } from './problems';
import { PREDICTION_ONLY_FIELDS } from './predictionFields';
import { duplicateKeyProblems, outlineJson, parseJsonFile, readTextFile } from './jsonFile';
import { inputWording } from '../text/inputWording';

export interface Question {
  /** Position in the question file: the official scripts pair predictions and gold by it. */
  index: number;
  questionId: number | string;
  dbId: string;
  question: string;
  evidence: string;
  /** Gold SQL from the question file (the `SQL` field), when it has one. */
  sql?: string;
  /** simple | moderate | challenging; files without it (the 2023 dev set) leave it empty. */
  difficulty: string;
  /**
   * Why the item cannot be scored as it stands (no db_id, not an object). It keeps its place, so predictions and
   * gold still pair by position as in the official scripts; a gold line may still name its database.
   */
  problem?: string;
  /** `item 3, line 40`: where it stands in the question file, for messages. */
  where?: string;
}

export interface QuestionFile {
  file: string;
  questions: Question[];
  problems: InputProblem[];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Reads a BIRD question file (mini-dev or dev, any published version): a JSON list of objects with
 * db_id, question, evidence, SQL and, in most versions, question_id and difficulty. Bad items are reported
 * and keep their place (skipped unless a gold line names their database), so that the others still pair
 * with predictions and gold by position.
 */
export function loadQuestions(file: string): QuestionFile {
  const text = readTextFile(file, 'question file');
  const data = parseJsonFile(file, text);
  if (!Array.isArray(data)) {
    const shape = typeof data === 'object' && data !== null ? ' (an object: the official prediction format?)' : '';
    throw new InputFileError({
      file,
      message: `a question file must be a JSON list of question objects; this holds ${data === null ? 'null' : Array.isArray(data) ? 'a list' : typeof data}${shape}`,
    });
  }
  const records = data.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item));
  if (data.length > 0 && !records.some((r) => typeof r.question === 'string' || typeof r.SQL === 'string' || typeof r.db_id === 'string')) {
    const predictions =
      records.some((r) => PREDICTION_ONLY_FIELDS.some((f) => typeof r[f] === 'string')) || data.every((item) => typeof item === 'string');
    throw new InputFileError({
      file,
      message: `no item has "question", "SQL" or "db_id": not a BIRD question file${predictions ? ' (it looks like a prediction file)' : ''}`,
    });
  }
  const outline = outlineJson(text);
  const lines = outline.entryLines;
  const questions: Question[] = [];
  // A repeated key keeps its last value (JSON.parse and Python's json.load alike): said, not silent.
  const problems: InputProblem[] = duplicateKeyProblems(file, text, { outline, data });
  data.forEach((item, index) => {
    const where = `item ${index}${lines[index] ? `, line ${lines[index]}` : ''}`;
    const placeholder = { index, questionId: index, dbId: '', question: '', evidence: '', difficulty: '', where };
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      const problem = 'not a question object';
      problems.push({ file, where, message: `${problem}; it keeps its place (so the others still pair by position) and is skipped` });
      questions.push({ ...placeholder, problem });
      return;
    }
    const record = item as Record<string, unknown>;
    const rawId = record.question_id;
    const questionId = typeof rawId === 'number' || typeof rawId === 'string' ? rawId : index;
    const dbId = optionalString(record.db_id) ?? '';
    const question: Question = {
      index,
      questionId,
      dbId,
      question: optionalString(record.question) ?? '',
      evidence: optionalString(record.evidence) ?? '',
      sql: optionalString(record.SQL),
      difficulty: optionalString(record.difficulty) ?? '',
      where,
    };
    if (!dbId) {
      question.problem = `no "db_id" string in the question file (${where})`;
      problems.push({
        file,
        where,
        message:
          'no "db_id" string; it keeps its place (so the others still pair by position) and takes its database from its ' +
          `${inputWording().goldLine}, or is skipped without one`,
      });
    }
    questions.push(question);
  });
  return { file, questions, problems };
}
