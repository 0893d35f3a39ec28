/** The dataset slice: attaching a BIRD dataset, its summary and questions, and a question's read-only document. */
import * as fs from 'fs';
import * as path from 'path';
import { Dataset, DatasetSummary, QuestionInfo, VesLensErrorCodes } from '../../shared/protocol';
import { ServerContext } from '../context';
import { UserError } from '../errors';
import { formatSql } from '../../app/sqlLayout';
import { datasetEngine } from './databaseSource';

export class DatasetProvider {
  constructor(private readonly context: ServerContext) {}

  async attach(dataset: Dataset | null): Promise<DatasetSummary> {
    const state = this.context.state;
    const engine = dataset ? await this.engine(dataset) : undefined;
    await state.attach(dataset, engine?.needsDbRoot ?? true);
    if (dataset && engine && !state.summary().error) await state.connect(engine.databases, engine);
    return this.logged(state.summary());
  }

  /** The attached dataset's databases again, as the settings and stored password say now (the files are not re-read). */
  async reconnect(): Promise<DatasetSummary> {
    const state = this.context.state;
    const dataset = state.dataset;
    if (!dataset) return state.summary();
    // A dataset that could not be used (its SQLite folder missing) may be usable on the new engine: attached anew.
    if (state.summary().error) return this.attach(dataset);
    const engine = await this.engine(dataset);
    // A SQLite folder deleted since attaching is said as at attach time.
    if (engine.needsDbRoot && !fs.existsSync(dataset.dbRoot)) return this.attach(dataset);
    await state.connect(engine.databases, engine);
    return this.logged(state.summary());
  }

  private engine(dataset: Dataset) {
    const host = this.context.host;
    return datasetEngine(
      dataset,
      this.context.settings,
      async (scope) => host.secret?.('postgresPassword', scope),
      this.context.storageDir,
    );
  }

  private logged(summary: DatasetSummary): DatasetSummary {
    const dataset = summary.dataset;
    if (summary.error) this.context.log(`dataset: ${summary.error}`);
    else if (dataset) {
      const engine = summary.engine;
      const where = engine?.runs === 'server' ? '' : `, databases under ${dataset.dbRoot}`;
      const runs = engine ? `SQL runs on ${engine.line}` : `SQL cannot run: ${summary.engineError}`;
      this.context.log(`dataset: ${summary.questionCount} questions from ${dataset.questionsFile}${where}; ${runs}`);
    }
    return summary;
  }

  summary(): DatasetSummary {
    return this.context.state.summary();
  }

  questions(dbId?: string): QuestionInfo[] {
    const state = this.context.state;
    return state.questions.filter((q) => !dbId || q.dbId === dbId).map((q) => state.info(q));
  }

  /** A question as a read-only SQL document: its text and evidence as comments, then its gold SQL, formatted. */
  questionDocument(questionId: number | string): string {
    const state = this.context.state;
    const question = state.question(questionId);
    if (!question) throw new UserError(`no question ${questionId} in the attached dataset`, VesLensErrorCodes.badInput);
    const info = state.info(question);
    const comment = (label: string, text: string) =>
      text.split(/\r?\n/).map((line, i) => `-- ${i === 0 ? label : ' '.repeat(label.length)}${line}`);
    const gold = formatSql(info.gold, this.context.dialect).trim();
    const questionsFile = path.basename(state.dataset?.questionsFile ?? '');
    return [
      `-- bird: ${info.questionId}`,
      `-- db: ${info.dbId}`,
      `-- ${info.difficulty || 'no difficulty'} · question ${info.index + 1} of ${state.questions.length} in ${questionsFile}`,
      ...comment('Question: ', info.question),
      ...comment('Evidence: ', info.evidence || '(none)'),
      `-- Gold SQL${state.dataset?.goldFile ? ` (${path.basename(state.dataset.goldFile)})` : ''}:`,
      gold.endsWith(';') ? gold : `${gold};`,
      '',
    ].join('\n');
  }
}
