/**
 * The judge slice: does a prediction answer its question? app/statementJudge.ts judges it (core's cascade, ROSE's
 * Prover and Refuter by default) with the model the request names: an OpenAI-compatible endpoint this server calls,
 * or a vscode.lm model reached through the client. Here: the key and the consent asked of the client, progress,
 * and the outcome worded.
 */
import { formatSql } from '../../app/sqlLayout';
import {
  ClientChatFailure,
  fatalModelMessage,
  judgeModel,
  JudgeSettingError,
  StatementJudge,
  type ClientChat,
} from '../../app/statementJudge';
import type { ChatModel } from '../../core/llm/chatModel';
import { ChatCompletionErrors, JudgeParams, JudgeResult, VesLensErrorCodes } from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError, UserError } from '../errors';
import { QueryTargets } from '../queryTargets';

export class JudgeProvider {
  /** Schema, keys and samples the judge's prompts show, read once per database. */
  private readonly judging = new StatementJudge();

  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {}

  /** A new dataset: its databases' facts are read anew. */
  forgetDatabases(): void {
    this.judging.forgetDatabases();
  }

  /** The client's vscode.lm completions, its refusals as the app's ClientChatFailure. */
  private clientChat(): ClientChat | undefined {
    const chat = this.context.host.chat;
    if (!chat) return undefined;
    return (request, signal) =>
      chat(request, signal).catch((error: unknown) => {
        const { code, message } = error as { code?: number; message?: string };
        throw new ClientChatFailure(code === ChatCompletionErrors.unavailable, message, error);
      });
  }

  /** The model the request names, with its key; a setting that names no usable model is the person's to fix. */
  private async model(params: JudgeParams): Promise<ChatModel> {
    const { host } = this.context;
    try {
      // The endpoint's key, from the client's SecretStorage (sealed on the way); local servers need none.
      const apiKey = params.model.provider === 'openai' ? await host.secret?.('judgeApiKey') : undefined;
      return judgeModel(params.model, this.clientChat(), apiKey);
    } catch (error) {
      const code = error instanceof JudgeSettingError ? VesLensErrorCodes.judgeSettings : VesLensErrorCodes.failed;
      throw new UserError((error as Error).message, code);
    }
  }

  /**
   * The person's consent for the request's endpoint, asked at most once per judgement and only when the client
   * says it has not been given yet; undefined when nothing is to be asked.
   */
  private consentOnce(
    params: JudgeParams,
    signal?: AbortSignal,
    progress?: (message: string) => void,
  ): (() => Promise<boolean>) | undefined {
    const spec = params.model;
    const ask = this.context.host.consent;
    if (!params.askConsent || spec.provider !== 'openai' || !ask) return undefined;
    let answer: Promise<boolean> | undefined;
    return () => {
      if (!answer) {
        progress?.(`asking to send to ${spec.url}`);
        answer = ask({ url: spec.url, model: spec.model }, signal).catch(() => false);
      }
      return answer;
    };
  }

  async judge(params: JudgeParams, signal?: AbortSignal, progress?: (message: string) => void): Promise<JudgeResult> {
    this.context.requireTrust();
    const started = performance.now();
    const state = this.context.state;
    const { sql } = this.targets.requestedUnit(params);
    const { question, target } = await this.targets.pairQuestion(params);
    const model = await this.model(params);
    const goldSql = state.goldSql(question);
    progress?.('running prediction and gold');
    const { evidence, dbId } = question;
    const pair = { question: question.question, evidence, dbId, dbPath: target, predictedSql: sql, goldSql };
    const judged = await this.judging.judge(
      pair,
      {
        model,
        method: params.method,
        cacheDir: params.cacheDir,
        ...this.context.limits,
        signal,
        // Consent is asked before a request really goes out: a cached reply, or nothing to judge, asks nothing.
        allowed: this.consentOnce(params, signal, progress),
        // Each request said in the progress line: a reasoning model can think for minutes.
        onRequest: (count) => progress?.(`waiting for ${model.id.replace(/^[a-z-]+:/, '')} (request ${count})`),
      },
      params.model.provider === 'openai' ? params.model.url : undefined,
    );
    if ('declined' in judged) throw new UserError(judged.declined, VesLensErrorCodes.consentDeclined);
    if ('cancelled' in judged) throw new CancelledError();
    if ('modelFailed' in judged) throw new UserError(fatalModelMessage(judged.modelFailed, params.model), VesLensErrorCodes.modelFailed);
    const { outcome } = judged;
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
  }
}
