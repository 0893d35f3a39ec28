import { InputFileError, InputProblem } from './problems';
import { parseJsonFile, readTextFile, topLevelEntryLines } from './jsonFile';

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
 * and left out; the rest keep their position.
 */
export function loadQuestions(file: string): QuestionFile {
  const text = readTextFile(file);
  const data = parseJsonFile(file, text);
  if (!Array.isArray(data)) {
    throw new InputFileError({ file, message: 'a question file must be a JSON list of question objects' });
  }
  const lines = topLevelEntryLines(text);
  const questions: Question[] = [];
  const problems: InputProblem[] = [];
  data.forEach((item, index) => {
    const where = `item ${index}${lines[index] ? `, line ${lines[index]}` : ''}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ file, where, message: 'not a question object; left out' });
      return;
    }
    const record = item as Record<string, unknown>;
    const dbId = optionalString(record.db_id);
    if (!dbId) {
      problems.push({ file, where, message: 'no "db_id" string; left out' });
      return;
    }
    const rawId = record.question_id;
    const questionId = typeof rawId === 'number' || typeof rawId === 'string' ? rawId : index;
    questions.push({
      index,
      questionId,
      dbId,
      question: optionalString(record.question) ?? '',
      evidence: optionalString(record.evidence) ?? '',
      sql: optionalString(record.SQL),
      difficulty: optionalString(record.difficulty) ?? '',
    });
  });
  return { file, questions, problems };
}
