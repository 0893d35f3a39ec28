/**
 * Which SQL and which database a request means, shared by the hints, score, judge and plan providers: the
 * statement at an offset of a document as it is now, the database its `-- db:` / `-- bird:` comment, its
 * question or the default database names, and one message for each way a database can be missing. Result
 * previews are kept per database and SQL (a score's timing phase reuses its correctness phase's).
 */
import * as fs from 'fs';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { statementAt } from '../app/documentStatements';
import { resultPreview } from '../app/queryRuns';
import type { Question } from '../core/bird/questions';
import type { SqlUnit } from '../core/sql/documentUnits';
import { QueryTarget, QuestionInfo, ResultPreview, VesLensErrorCodes } from '../shared/protocol';
import { ServerContext } from './context';
import type { OpenDatabase } from '../core/db/connectionCache';
import { editorText } from './editorText';
import { UserError } from './errors';

/** Why a unit cannot reach its question or database, and which binding comment says so (none: the default database). */
export interface BindingProblem {
  kind: 'unknown-question' | 'missing-database';
  message: string;
  comment?: 'bird' | 'db';
}

/** Previews kept at most (the oldest goes first). */
const PREVIEWS_KEPT = 40;

export class QueryTargets {
  private readonly previews = new Map<string, ResultPreview>();

  constructor(private readonly context: ServerContext) {}

  private get state() {
    return this.context.state;
  }

  /** The database a unit runs on: its `-- db:` comment's, its question's, or the default one. */
  unitDbId(unit: SqlUnit): string | undefined {
    const question = this.state.question(unit.questionId, unit.questionIndex);
    return unit.dbId ?? question?.dbId ?? (this.context.settings.defaultDatabase || undefined);
  }

  /** A unit's open database; none when untrusted (hints then run without the schema) or when it cannot open. */
  async unitDatabase(unit: SqlUnit): Promise<OpenDatabase | undefined> {
    if (!this.context.trusted) return undefined;
    const dbId = this.unitDbId(unit);
    const target = dbId ? await this.state.databaseTarget(dbId) : undefined;
    return target ? this.state.database(target).catch(() => undefined) : undefined;
  }

  /** The SQL a request names: given outright, or the unit at an offset of the document as it is now. */
  requestedUnit(params: { sql?: string; uri?: string; offset?: number }): { sql: string; unit?: SqlUnit; document?: TextDocument } {
    if (params.sql !== undefined) return { sql: params.sql };
    const document = params.uri ? this.context.documents.get(params.uri) : undefined;
    const offset = params.offset ?? -1;
    const unit = document && statementAt(document, offset);
    if (!unit) throw new UserError('no SQL statement there any more (the document changed)', VesLensErrorCodes.documentChanged);
    return { sql: unit.sql, unit, document };
  }

  /** Why a question id finds nothing: the attached question file (named) does not hold it. */
  unknownQuestionMessage(questionId: number | string): string {
    const file = this.state.dataset?.questionsFile ?? 'no question file is attached';
    return `no question ${questionId} in the attached question file (${file}): check the id in \`-- bird: ${questionId}\``;
  }

  /** The `-- bird:` id of a unit when the attached question file does not hold it. */
  unknownQuestionId(unit: SqlUnit): number | string | undefined {
    if (unit.questionId === undefined || !this.state.dataset) return undefined;
    return this.state.question(unit.questionId) ? undefined : unit.questionId;
  }

  /**
   * What keeps a unit from its question or database before anything runs: a `-- bird:` id the question file
   * does not hold, a database file that is not there. Nothing when no dataset is attached (nothing to check).
   */
  async bindingProblems(unit: SqlUnit): Promise<BindingProblem[]> {
    if (!this.state.dataset) return [];
    const problems: BindingProblem[] = [];
    const unknown = this.unknownQuestionId(unit);
    if (unknown !== undefined) problems.push({ kind: 'unknown-question', message: this.unknownQuestionMessage(unknown), comment: 'bird' });
    const dbId = this.unitDbId(unit);
    if (dbId && !(await this.state.databaseTarget(dbId))) {
      const comment = unit.dbId ? 'db' : unknown === undefined && unit.questionId !== undefined ? 'bird' : undefined;
      const how =
        comment === 'db'
          ? ` (named by \`-- db: ${dbId}\`)`
          : comment === 'bird'
            ? ` (question ${unit.questionId}'s)`
            : ' (the vesLens.defaultDatabase setting)';
      problems.push({ kind: 'missing-database', message: this.noDatabaseMessage(dbId, how), comment });
    }
    return problems;
  }

  /** Why a statement has no database: it names none, no dataset is attached, or the file is missing. */
  noDatabaseMessage(dbId: string | undefined, how = ''): string {
    const dataset = this.state.dataset;
    if (!dbId) {
      return dataset
        ? 'this statement names no database: add `-- db: <db_id>` or `-- bird: <question_id>` above it, or set vesLens.defaultDatabase'
        : 'no dataset is attached: attach a BIRD dataset (VES Lens: Attach a BIRD Dataset) to run SQL on its databases';
    }
    if (!dataset) return `no dataset is attached, so database ${dbId}${how} cannot be found: attach a BIRD dataset first`;
    const engineFailure = this.state.engineFailure;
    if (engineFailure) return `database ${dbId}${how} cannot be reached: ${engineFailure}`;
    if (this.context.settings.engine === 'postgres') {
      const url = this.state.engine?.location ?? 'the server';
      return `database ${dbId}${how} is missing: ${this.state.databaseLabel(dbId)} does not exist (load it with ves-lens load --from ${dataset.dbRoot} --to ${url} --db ${dbId})`;
    }
    return `database ${dbId}${how} is missing: ${this.state.databaseLabel(dbId)} does not exist`;
  }

  /** The database of a query target: a path, a db_id, the statement's comments or question, or the default database. */
  async targetDatabase(target: QueryTarget, unit?: SqlUnit): Promise<{ database: OpenDatabase; dbId?: string }> {
    if (target.dbPath) {
      if (!fs.existsSync(target.dbPath)) throw new UserError(`database file not found: ${target.dbPath}`, VesLensErrorCodes.noDatabase);
      return { database: await this.state.database(target.dbPath) };
    }
    const fromComment = unit?.dbId;
    const defaultDbId = this.context.settings.defaultDatabase || undefined;
    const dbId = fromComment ?? target.dbId ?? (unit ? this.unitDbId(unit) : undefined) ?? defaultDbId;
    const how = fromComment
      ? ` (named by \`-- db: ${fromComment}\`)`
      : !target.dbId && !unit?.questionId && dbId
        ? ' (the vesLens.defaultDatabase setting)'
        : '';
    const databaseTarget = dbId ? await this.state.databaseTarget(dbId) : undefined;
    if (!databaseTarget) {
      // `-- bird: 99999` names a question, not a database: say that the question is not there.
      const unknownQuestion = !fromComment && !target.dbId && unit ? this.unknownQuestionId(unit) : undefined;
      if (unknownQuestion !== undefined && !dbId)
        throw new UserError(this.unknownQuestionMessage(unknownQuestion), VesLensErrorCodes.badInput);
      throw new UserError(this.noDatabaseMessage(dbId, how), VesLensErrorCodes.noDatabase);
    }
    return { database: await this.state.database(databaseTarget), dbId };
  }

  /** The question a query target belongs to: the one it names, else its statement's. */
  targetQuestion(target: QueryTarget, unit?: SqlUnit): QuestionInfo | undefined {
    const byPosition = target.questionId === undefined ? unit?.questionIndex : undefined;
    const question = this.state.question(target.questionId ?? unit?.questionId, byPosition);
    return question ? this.state.info(question) : undefined;
  }

  /** The question a Score or Judge names, and the target its database opens on; or why there is none. */
  async pairQuestion(params: { questionId?: number | string; questionIndex?: number }): Promise<{ question: Question; target: string }> {
    const question = this.state.question(params.questionId, params.questionIndex);
    if (!question) {
      const message =
        params.questionId === undefined && params.questionIndex === undefined
          ? 'this statement is bound to no question: add `-- bird: <question_id>` above it'
          : params.questionId !== undefined
            ? this.unknownQuestionMessage(params.questionId)
            : `no question #${params.questionIndex} in the attached question file`;
      throw new UserError(message, VesLensErrorCodes.badInput);
    }
    const target = await this.state.databaseTarget(question.dbId);
    if (!target) throw new UserError(this.noDatabaseMessage(question.dbId), VesLensErrorCodes.noDatabase);
    return { question, target };
  }

  /** A query's first rows, computed once per database and SQL. */
  async preview(database: OpenDatabase, sql: string, signal?: AbortSignal): Promise<ResultPreview> {
    const key = `${database.path}\n${sql}`;
    const cached = this.previews.get(key);
    if (cached) return cached;
    const rows = await resultPreview(database.db, sql, { ...this.context.limits, signal });
    const preview = rows.error === undefined ? rows : { ...rows, error: editorText(rows.error) };
    this.previews.set(key, preview);
    if (this.previews.size > PREVIEWS_KEPT) this.previews.delete(this.previews.keys().next().value!);
    return preview;
  }

  /** A new dataset: its databases' previews are no longer valid. */
  forgetPreviews(): void {
    this.previews.clear();
  }
}
