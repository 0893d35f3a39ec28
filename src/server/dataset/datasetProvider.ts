/** The dataset slice: attaching a BIRD dataset, its summary and questions, and a question's read-only document. */
import * as path from 'path';
import { Dataset, DatasetSummary, QuestionInfo, VesLensErrorCodes } from '../../shared/protocol';
import { ServerContext } from '../context';
import { UserError } from '../errors';
import { formatSql } from '../sqlFormat';

export class DatasetProvider {
  constructor(private readonly context: ServerContext) {}

  async attach(dataset: Dataset | null): Promise<DatasetSummary> {
    const summary = await this.context.state.attach(dataset);
    if (summary.error) this.context.log(`dataset: ${summary.error}`);
    else if (dataset) {
      this.context.log(`dataset: ${summary.questionCount} questions from ${dataset.questionsFile}, databases under ${dataset.dbRoot}`);
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
    const gold = formatSql(info.gold).trim();
    const questionsFile = path.basename(state.dataset?.questionsFile ?? '');
    return [
      `-- bird: ${info.questionId}`,
      `-- db: ${info.dbId}`,
      `-- ${info.difficulty || 'no difficulty'} · question ${info.index + 1} of ${state.questions.length} in ${questionsFile}`,
      ...comment('Question: ', info.question),
      ...comment('Evidence: ', info.evidence || '(none)'),
      '-- Gold SQL:',
      gold.endsWith(';') ? gold : `${gold};`,
      '',
    ].join('\n');
  }
}
