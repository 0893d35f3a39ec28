/**
 * The judge slice: does a prediction answer its question? core's judgePair runs the cascade (ROSE's Prover and
 * Refuter by default) with the model the request names: an OpenAI-compatible endpoint this server calls, or a
 * vscode.lm model reached through the client (judgeModels.ts).
 */
import { QueryCancelled } from '../../core/db/database';
import { DatabaseFactsCache } from '../../core/judge/dbInfo';
import { judgePair } from '../../core/judge/judgePair';
import { ChatModel, ChatModelError, ChatReply } from '../../core/llm/chatModel';
import { ReplyCache } from '../../core/llm/replyCache';
import { JudgeParams, JudgeResult, VesLensErrorCodes } from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError, UserError } from '../errors';
import { QueryTargets } from '../queryTargets';
import { formatSql } from '../../app/sqlLayout';
import { fatalModelMessage, judgeModel, JudgeSettingError } from './judgeModels';

/** The endpoint was not allowed: nothing was sent. A cancellation to core (it stops the cascade), said as such. */
class ConsentDeclined extends ChatModelError {
  constructor(url: string) {
    super(`not judged: sending to ${url} was not allowed, so nothing was sent`, 'cancelled');
  }
}

export class JudgeProvider {
  /** Schema, keys and samples the judge's prompts show, read once per database. */
  private facts = new DatabaseFactsCache();

  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {}

  /** A new dataset: its databases' facts are read anew. */
  forgetDatabases(): void {
    this.facts = new DatabaseFactsCache();
  }

  /** The model the request names, with its key; a setting that names no usable model is the person's to fix. */
  private async model(params: JudgeParams): Promise<ChatModel> {
    const { host } = this.context;
    try {
      // The endpoint's key, from the client's SecretStorage (sealed on the way); local servers need none.
      const apiKey = params.model.provider === 'openai' ? await host.secret?.('judgeApiKey') : undefined;
      return judgeModel(params.model, host.chat, apiKey);
    } catch (error) {
      const code = error instanceof JudgeSettingError ? VesLensErrorCodes.judgeSettings : VesLensErrorCodes.failed;
      throw new UserError((error as Error).message, code);
    }
  }

  /**
   * The person's consent for the request's endpoint, asked at most once per judgement and only when the client
   * says it has not been given yet; resolves when allowed, throws ConsentDeclined when not.
   */
  private consentOnce(params: JudgeParams, signal?: AbortSignal, progress?: (message: string) => void): () => Promise<void> {
    const spec = params.model;
    const ask = this.context.host.consent;
    if (!params.askConsent || spec.provider !== 'openai' || !ask) return async () => {};
    let answer: Promise<boolean> | undefined;
    return async () => {
      if (!answer) {
        progress?.(`asking to send to ${spec.url}`);
        answer = ask({ url: spec.url, model: spec.model }, signal).catch(() => false);
      }
      if (!(await answer)) throw new ConsentDeclined(spec.url);
    };
  }

  async judge(params: JudgeParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<JudgeResult> {
    this.context.requireTrust();
    const started = performance.now();
    const state = this.context.state;
    const { sql } = this.targets.requestedUnit(params);
    const { question, target } = await this.targets.pairQuestion(params);
    const model = await this.model(params);
    // Each request said in the progress line: a reasoning model can think for minutes.
    let requests = 0;
    const allowed = this.consentOnce(params, signal, progress);
    const counted: ChatModel = {
      id: model.id,
      complete: async (messages, options): Promise<ChatReply> => {
        // Consent is asked here, before a request really goes out: a cached reply, or nothing to judge, asks nothing.
        await allowed();
        progress?.(`waiting for ${model.id.replace(/^[a-z-]+:/, '')} (request ${++requests})`);
        return model.complete(messages, options);
      },
    };
    const goldSql = state.goldSql(question);
    progress?.('running prediction and gold');
    try {
      const { evidence, dbId } = question;
      const pair = { question: question.question, evidence, dbId, dbPath: target, predictedSql: sql, goldSql };
      const cache = params.cacheDir ? new ReplyCache(params.cacheDir) : undefined;
      const limits = this.context.limits;
      const outcome = await judgePair(pair, { model: counted, method: params.method, cache, ...limits, signal, facts: this.facts });
      const verdict = `score ${outcome.score ?? 'none'}, ${outcome.calls} requests (${outcome.cached_calls} from the cache)`;
      const errorSaid = outcome.error ? `, ${outcome.error}` : '';
      this.context.log(`judged question ${question.questionId} with ${model.id}: ${verdict}${errorSaid}`);
      return {
        question: state.info(question),
        predSql: formatSql(sql),
        goldSql: formatSql(goldSql ?? ''),
        predicted_sql: sql,
        judge: {
          ...outcome,
          error: outcome.error === null ? null : editorText(outcome.error),
          notes: outcome.notes.map(editorText),
        },
        model: model.id,
        elapsedMs: performance.now() - started,
      };
    } catch (error) {
      if (error instanceof ConsentDeclined) throw new UserError(error.message, VesLensErrorCodes.consentDeclined);
      const cancelled = error instanceof ChatModelError && error.kind === 'cancelled';
      if (signal?.aborted || cancelled || error instanceof QueryCancelled) throw new CancelledError();
      if (error instanceof ChatModelError) throw new UserError(fatalModelMessage(error, params.model), VesLensErrorCodes.modelFailed);
      throw error;
    }
  }
}
