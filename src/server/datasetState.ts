import * as fs from 'fs';
import { GoldFile, loadGold } from '../core/bird/gold';
import { formatProblem } from '../core/bird/problems';
import { loadQuestions, Question } from '../core/bird/questions';
import { ConnectionCache, OpenDatabase } from '../core/db/connectionCache';
import { sqliteVersion } from '../core/db/engines';
import { databasePath } from '../core/bird/layout';
import { Dataset, DatasetSummary, QuestionInfo } from '../shared/protocol';
import { editorText } from './editorText';

export type { OpenDatabase };

/** The attached BIRD dataset and the databases opened for it (read-only, one connection each, kept open). */
export class DatasetState {
  dataset: Dataset | null = null;
  questions: Question[] = [];
  private gold?: GoldFile;
  private problems: string[] = [];
  /** Why the dataset cannot be used at all, naming the file and what was expected. */
  private error?: string;
  private byId = new Map<string, Question>();
  /** A file that failed to open is tried again next time: it may have been fixed or copied in meanwhile. */
  private readonly connections = ConnectionCache.withSchema({ forgetFailures: true });
  sqlite = '';

  async attach(dataset: Dataset | null): Promise<DatasetSummary> {
    await this.closeAll();
    this.dataset = dataset;
    this.questions = [];
    this.gold = undefined;
    this.problems = [];
    this.error = undefined;
    this.byId.clear();
    this.sqlite ||= await sqliteVersion();
    if (dataset) {
      const QUESTION_FILE =
        'Expected a BIRD question file: a JSON list of objects with "question_id", "db_id", "question", "evidence" and the gold "SQL" (mini_dev_sqlite.json, dev.json).';
      try {
        const loaded = loadQuestions(dataset.questionsFile);
        this.questions = loaded.questions;
        this.problems.push(...loaded.problems.map((p) => editorText(formatProblem(p))));
      } catch (error) {
        this.error = `${editorText((error as Error).message)}. ${QUESTION_FILE}`;
      }
      if (dataset.goldFile && !this.error) {
        try {
          this.gold = loadGold(dataset.goldFile);
          this.problems.push(...this.gold.problems.map((p) => editorText(formatProblem(p))));
        } catch (error) {
          this.error = `${editorText((error as Error).message)}. Expected a BIRD gold file: one "SQL<TAB>db_id" a line, in question order.`;
        }
      }
      if (!this.error && this.questions.length === 0) this.error = `${dataset.questionsFile}: holds no questions. ${QUESTION_FILE}`;
      if (!this.error && !fs.existsSync(dataset.dbRoot))
        this.error = `${dataset.dbRoot}: no such folder. Expected the database folder, holding <db_id>/<db_id>.sqlite.`;
      for (const q of this.questions) this.byId.set(String(q.questionId), q);
    }
    return this.summary();
  }

  summary(): DatasetSummary {
    const counts = new Map<string, number>();
    for (const q of this.questions) counts.set(q.dbId, (counts.get(q.dbId) ?? 0) + 1);
    return {
      dataset: this.dataset,
      sqlite: this.sqlite,
      questionCount: this.questions.length,
      databases: [...counts]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([dbId, questions]) => ({ dbId, questions, present: this.dbPath(dbId) !== undefined })),
      problems: this.problems,
      error: this.error,
    };
  }

  /** A question by id (`-- bird: 12`) or by position in the question file. */
  question(questionId?: number | string, index?: number): Question | undefined {
    if (questionId !== undefined) return this.byId.get(String(questionId));
    return index === undefined ? undefined : this.questions.find((q) => q.index === index);
  }

  /** The attached gold file, if the dataset has one (else each question's own SQL is its gold). */
  get goldFile(): GoldFile | undefined {
    return this.gold;
  }

  goldSql(question: Question): string | undefined {
    return this.gold ? this.gold.entries[question.index]?.sql : question.sql;
  }

  info(question: Question): QuestionInfo {
    return {
      index: question.index,
      questionId: question.questionId,
      dbId: question.dbId,
      difficulty: question.difficulty,
      question: question.question,
      evidence: question.evidence,
      gold: this.goldSql(question) ?? '',
    };
  }

  dbPath(dbId: string): string | undefined {
    if (!this.dataset) return undefined;
    const file = databasePath(this.dataset.dbRoot, dbId);
    return fs.existsSync(file) ? file : undefined;
  }

  /** An open read-only connection and schema for a database file (opened once, then reused). */
  database(file: string): Promise<OpenDatabase> {
    return this.connections.open(file);
  }

  closeAll(): Promise<void> {
    return this.connections.closeAll();
  }
}
