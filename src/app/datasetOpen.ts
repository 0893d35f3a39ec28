/**
 * The editor's attached BIRD dataset: its question and gold files read, its databases opened through a
 * DatabaseSource, and what the language server says of it (its summary, a question's details). Messages pass
 * through `word`, the face's wording of core's text.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadGold, type GoldFile } from '../core/bird/gold';
import { databasePath } from '../core/bird/layout';
import { formatProblem } from '../core/bird/problems';
import { loadQuestions, type Question } from '../core/bird/questions';
import { ConnectionCache, type OpenDatabase } from '../core/db/connectionCache';
import { sqliteVersion } from '../core/db/engines';
import {
  localMysql,
  postgresServer,
  sqliteFolder,
  type DatabaseSource,
  type EngineDescription,
  type PostgresLayout,
} from '../core/db/source';
import { engineLine } from '../core/text/engineText';
import { embeddedPostgres } from '../core/db/pglite/embeddedSource';
import { isPostgresTarget, redactText, redactUrl } from '../core/db/postgres/connectionTarget';
import { localServerMissing } from '../core/db/mysql/localServer';
import type { Wording } from './statementPlan';

export interface Dataset {
  /** Absolute paths. */
  questionsFile: string;
  goldFile?: string;
  dbRoot: string;
}

/** What runs the attached dataset's SQL, as the status bar and the panels name it (never a password). */
export interface EngineSummary extends EngineDescription {
  /** One line: `SQLite 3.45.1`, `PostgreSQL 15.10 (server postgresql://user@host:5432/bird, one-database layout)`. */
  line: string;
}

export interface DatasetSummary {
  dataset: Dataset | null;
  sqlite: string;
  /** What runs the SQL (the vesLens.engine setting); null while none is attached or when it cannot be reached. */
  engine: EngineSummary | null;
  /**
   * Why the engine cannot run the SQL (a server that does not answer, a password refused, a URL that is not one),
   * with what to do; the dataset stays attached, and every feature that needs a database says the same.
   */
  engineError?: string;
  questionCount: number;
  /**
   * db_id → whether its database is there, how many questions use it, its SQLite file where BIRD's layout puts it
   * (`<db_root>/<db_id>/<db_id>.sqlite`), and on another engine where it is looked for (its schema, database or
   * tables, named without the password).
   */
  databases: { dbId: string; present: boolean; questions: number; file: string; location?: string }[];
  /** Input problems of the files (each naming file and key or line). */
  problems: string[];
  /** Why the dataset could not be used at all (a question file that is no question file...), naming the file and what was expected. */
  error?: string;
}

export interface QuestionInfo {
  index: number;
  questionId: number | string;
  dbId: string;
  difficulty: string;
  question: string;
  evidence: string;
  gold: string;
}

/** How the dataset reaches its databases: a source, or why there is none (said wherever a database is needed). */
export type DatasetDatabases = { source: DatabaseSource } | { failure: string };

/**
 * The attached BIRD dataset and the databases opened for it (read-only, one connection each, kept open), through
 * its DatabaseSource (core/db/source.ts): the SQLite files under its folder, or a PostgreSQL server or embedded
 * PostgreSQL (the vesLens.engine setting). The source is set by connect(), which also says what runs the SQL.
 */
export class DatasetState {
  dataset: Dataset | null = null;
  questions: Question[] = [];
  private gold?: GoldFile;
  private problems: string[] = [];
  /** Why the dataset cannot be used at all, naming the file and what was expected. */
  private error?: string;
  private byId = new Map<string, Question>();
  private databases: DatasetDatabases = { source: sqliteFolder('') };
  private described: EngineSummary | null = null;
  /** Whether each db_id's database was there when last looked for (the explorer's rows). */
  private readonly presence = new Map<string, boolean>();
  /** A database that failed to open is tried again next time: it may have been fixed or copied in meanwhile. */
  private connections = ConnectionCache.withSchema({ forgetFailures: true });
  /** Counts attaches and connects: a connect that finishes after a later one started is dropped. */
  private generation = 0;
  sqlite = '';

  constructor(private readonly word: Wording = (text) => text) {}

  /**
   * Reads the dataset's files; `needsDbRoot` when its SQLite folder is what the SQL runs on (or what an embedded
   * engine is loaded from), so a missing folder makes the dataset unusable. Its databases come with connect().
   */
  async attach(dataset: Dataset | null, needsDbRoot = true): Promise<void> {
    this.generation++; // a connect still under way was for the previous dataset
    await this.closeAll();
    this.dataset = dataset;
    this.questions = [];
    this.gold = undefined;
    this.problems = [];
    this.error = undefined;
    this.byId.clear();
    this.databases = { failure: 'no dataset is attached' };
    this.described = null;
    this.presence.clear();
    // SQLite that does not load at all (VES_LENS_SQLITE=native without its module) leaves the server up: the
    // dataset's questions and documents stay usable, and what runs SQL says why it cannot.
    this.sqlite ||= await sqliteVersion().catch((error: Error) => `unavailable (${String(error.message).split('\n')[0]})`);
    if (dataset) {
      const QUESTION_FILE =
        'Expected a BIRD question file: a JSON list of objects with "question_id", "db_id", "question", "evidence" and the gold "SQL" (mini_dev_sqlite.json, dev.json).';
      try {
        const loaded = loadQuestions(dataset.questionsFile);
        this.questions = loaded.questions;
        this.problems.push(...loaded.problems.map((p) => this.word(formatProblem(p))));
      } catch (error) {
        this.error = `${this.word((error as Error).message)}. ${QUESTION_FILE}`;
      }
      if (dataset.goldFile && !this.error) {
        try {
          this.gold = loadGold(dataset.goldFile);
          this.problems.push(...this.gold.problems.map((p) => this.word(formatProblem(p))));
        } catch (error) {
          this.error = `${this.word((error as Error).message)}. Expected a BIRD gold file: one "SQL<TAB>db_id" a line, in question order.`;
        }
      }
      if (!this.error && this.questions.length === 0) this.error = `${dataset.questionsFile}: holds no questions. ${QUESTION_FILE}`;
      if (!this.error && needsDbRoot && !fs.existsSync(dataset.dbRoot))
        this.error = `${dataset.dbRoot}: no such folder. Expected the database folder, holding <db_id>/<db_id>.sqlite.`;
      for (const q of this.questions) this.byId.set(String(q.questionId), q);
    }
  }

  /**
   * Runs the dataset's SQL through `databases` from now on: what runs it is asked once (a server is reached within
   * `withinMs`), and each database of the questions is looked for. A failure is kept, worded by `explainFailure`,
   * and said by every feature. The databases in use stay until the new ones answer; of connects that overlap (the
   * URL setting typed a key at a time), the last one asked wins.
   */
  async connect(databases: DatasetDatabases, options: { withinMs: number; explainFailure: (error: Error) => string }): Promise<void> {
    const generation = ++this.generation;
    let outcome = databases;
    let described: EngineSummary | null = null;
    if ('source' in databases) {
      try {
        const description = await withinTime(databases.source.describe(), options.withinMs);
        described = { ...description, line: engineLine(description) };
      } catch (error) {
        outcome = { failure: this.word(options.explainFailure(error as Error)) };
      }
    }
    if (generation !== this.generation) return;
    await this.closeAll();
    this.databases = outcome;
    this.described = described;
    this.presence.clear();
    if (!('source' in outcome)) return;
    this.connections = ConnectionCache.withSchema({ source: outcome.source, forgetFailures: true });
    for (const dbId of new Set(this.questions.map((q) => q.dbId))) await this.databaseTarget(dbId);
  }

  summary(): DatasetSummary {
    const counts = new Map<string, number>();
    for (const q of this.questions) counts.set(q.dbId, (counts.get(q.dbId) ?? 0) + 1);
    const source = this.source;
    return {
      dataset: this.dataset,
      sqlite: this.sqlite,
      engine: this.dataset && !this.error ? this.described : null,
      engineError: this.dataset && !this.error ? this.engineFailure : undefined,
      questionCount: this.questions.length,
      databases: [...counts]
        // By code unit: db_ids are ASCII names, and localeCompare's first call loads ICU's collator (~30 ms of start-up).
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([dbId, questions]) => ({
          dbId,
          questions,
          present: this.presence.get(dbId) ?? false,
          // A SQLite file's place is BIRD's layout under the dataset's folder (questions come with a dataset); a server's is named.
          file: databasePath(this.dataset?.dbRoot ?? '', dbId),
          ...(source && source.engine.name !== 'sqlite' ? { location: source.label(dbId) } : {}),
        })),
      problems: this.problems,
      error: this.error,
    };
  }

  /** Where the dataset's databases are; none when the engine cannot be used (engineFailure says why). */
  get source(): DatabaseSource | undefined {
    return 'source' in this.databases ? this.databases.source : undefined;
  }

  /** Why the dataset's engine cannot run SQL (a server that does not answer, a refused password, no URL). */
  get engineFailure(): string | undefined {
    return 'failure' in this.databases && this.dataset ? this.databases.failure : undefined;
  }

  /** What runs the dataset's SQL, once connected. */
  get engine(): EngineSummary | null {
    return this.described;
  }

  /** What runs the SQL, in one line (`SQLite 3.45.1`, `PostgreSQL 15.10 (server postgresql://…, one-database layout)`). */
  get engineLine(): string {
    return this.described?.line ?? `SQLite ${this.sqlite}`;
  }

  /** The engine's name as messages put it before the engine's own words (`SQLite: no such column`). */
  get engineName(): string {
    return this.described?.engine === 'postgres'
      ? 'PostgreSQL'
      : this.described?.engine === 'mysql'
        ? (this.described.product ?? 'MySQL')
        : 'SQLite';
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

  /** The target a db_id's database opens on (a SQLite file, a server URL without password), if it is there. */
  async databaseTarget(dbId: string): Promise<string | undefined> {
    const source = this.source;
    if (!this.dataset || !source) return undefined;
    const present = await source.exists(dbId).catch(() => false);
    this.presence.set(dbId, present);
    return present ? source.targetFor(dbId) : undefined;
  }

  /** How messages name where a db_id's database is looked for (a file's path; a schema, database or tables on a server). */
  databaseLabel(dbId: string): string {
    return this.source?.label(dbId) ?? dbId;
  }

  /** An open read-only connection and schema for a database target (opened once, then reused). */
  database(target: string): Promise<OpenDatabase> {
    return this.connections.open(target);
  }

  closeAll(): Promise<void> {
    return this.connections.closeAll();
  }
}

/** `work`, or a failure saying it had no answer within `ms` (a server host that swallows packets never refuses). */
function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

// ---- which engine runs the dataset's SQL, from the editor's settings ----------------------------------------

/** How long a server gets to answer when the dataset connects (a host that drops packets never refuses), as libpq's usual connect_timeout. */
const CONNECT_MS = 10_000;
const EMBEDDED_LOAD_MS = 30 * 60_000;

export interface DatasetEngine {
  databases: DatasetDatabases;
  /** Whether the SQL runs on the dataset's SQLite folder (or on a copy loaded from it): without it the dataset is unusable. */
  needsDbRoot: boolean;
  withinMs: number;
  /** A failure to reach the engine, worded with what to do. */
  explainFailure(error: Error): string;
}

/** The engine the editor's settings choose for a dataset (vesLens.engine, vesLens.postgres.url and .layout). */
export interface DatasetEngineChoice {
  engine: string;
  postgresUrl: string;
  postgresLayout: PostgresLayout;
  /** The extension's storage: the embedded PostgreSQL's and the local MariaDB's copies are kept there. */
  storageDir?: string;
  /** How messages name the URL's setting, and how a password is set (the face's words). */
  urlSetting: string;
  setPassword: string;
}

/** The engine settings as the server's log says them, a URL without its password: `postgres (postgresql://u@h/bird, schema layout)`. */
export function engineChoiceText(choice: Pick<DatasetEngineChoice, 'engine' | 'postgresUrl' | 'postgresLayout'>): string {
  if (choice.engine !== 'postgres') return choice.engine;
  return `postgres (${choice.postgresUrl ? redactUrl(choice.postgresUrl) : 'embedded'}, ${choice.postgresLayout} layout)`;
}

/** A server URL's password: given in the URL itself, or the one the client stores for it (asked only when connecting). */
export type UrlPassword = (url: string) => Promise<{ inUrl: boolean; stored?: string }>;

/** The dataset's engine as the settings say; `password` says the password of the server URL, if any. */
export async function chooseDatasetEngine(dataset: Dataset, choice: DatasetEngineChoice, password: UrlPassword): Promise<DatasetEngine> {
  const { storageDir } = choice;
  const asIs = (error: Error) => error.message;
  if (choice.engine === 'sqlite') {
    return { databases: { source: sqliteFolder(dataset.dbRoot) }, needsDbRoot: true, withinMs: CONNECT_MS, explainFailure: asIs };
  }
  if (choice.engine === 'mysql') {
    // A local MariaDB server loaded from the dataset's SQLite files (kept in the extension's storage), started for the session.
    const missing = localServerMissing();
    if (missing) return { databases: { failure: missing }, needsDbRoot: true, withinMs: CONNECT_MS, explainFailure: asIs };
    return {
      databases: { source: localMysql(dataset.dbRoot, { cacheDir: storageDir && path.join(storageDir, 'mariadb') }) },
      needsDbRoot: true,
      withinMs: EMBEDDED_LOAD_MS,
      explainFailure: asIs,
    };
  }
  const url = choice.postgresUrl;
  const setting = choice.urlSetting;
  const failed = (failure: string): DatasetEngine => ({
    databases: { failure },
    needsDbRoot: false,
    withinMs: CONNECT_MS,
    explainFailure: asIs,
  });
  if (!url) {
    // No server: an embedded PostgreSQL loaded from the dataset's SQLite files, its copy kept in the extension's storage.
    const layout = choice.postgresLayout === 'schema' ? 'schema' : 'one-database';
    return {
      databases: { source: embeddedPostgres(dataset.dbRoot, { layout, cacheDir: storageDir && path.join(storageDir, 'pglite') }) },
      needsDbRoot: true,
      // Loading a large database into the embedded copy (once: it is kept) may take minutes.
      withinMs: EMBEDDED_LOAD_MS,
      explainFailure: (error) => error.message.replace(/^--db-root: /, ''),
    };
  }
  if (!isPostgresTarget(url)) return failed(`${setting}: expected postgresql://user@host:port/database, got "${redactText(url)}"`);
  const shown = redactUrl(url);
  try {
    const { inUrl, stored } = await password(url);
    return {
      databases: { source: postgresServer(stored ? withPassword(url, stored) : url, choice.postgresLayout) },
      needsDbRoot: false,
      withinMs: CONNECT_MS,
      explainFailure: (error) =>
        !/password/i.test(error.message)
          ? `PostgreSQL at ${shown} cannot be used: ${error.message}. Check ${setting} and that the server runs.`
          : stored || inUrl || process.env.PGPASSWORD
            ? `PostgreSQL at ${shown}: ${error.message}: ${choice.setPassword}`
            : // node-postgres's own words for it ("client password must be a string") say nothing to a person.
              `PostgreSQL at ${shown} asks for a password, and none is stored for this URL: ${choice.setPassword}`,
    };
  } catch (error) {
    return failed(`${setting}: ${redactText((error as Error).message)}`);
  }
}

/** The URL with a password in its parameters, where core takes it out again and keeps it for connections only. */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('password', password);
  return parsed.toString();
}
