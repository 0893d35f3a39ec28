/** The judge slice: does a prediction answer its question, by a chat model (the Score panel's Judge section). */
import { RequestType } from 'vscode-languageserver-protocol';
import type { JudgeModelSpec } from '../../app/statementJudge';
import type { JudgedQuestion } from '../../core/judge/judgeSummary';
import type { JudgeMethod } from '../../core/judge/types';
import type { ChatReply, UserOrAssistantMessage } from '../../core/llm/chatModel';
import type { QuestionInfo } from './dataset';

/**
 * Which chat model judges: one of VS Code's (vscode.lm, in the extension host: the server asks the client for
 * each completion with ChatCompletionRequest) or an OpenAI-compatible endpoint the server calls itself (its key,
 * `judgeApiKey`, the server asks for sealed with SecretRequest: never in a request's parameters or a log).
 */
export type { JudgeModelSpec } from '../../app/statementJudge';

/** What "Judge" acts on: a prediction and its question, as ScoreParams names them. */
export interface JudgeParams {
  sql?: string;
  uri?: string;
  offset?: number;
  questionId?: number | string;
  questionIndex?: number;
  method: JudgeMethod;
  model: JudgeModelSpec;
  /** Replies kept here (the extension's global storage) so a re-judgement costs no call; none: no cache. */
  cacheDir?: string;
  /**
   * The person has not allowed this `openai` endpoint yet: before the first request that really goes out (none
   * when every reply is cached, or nothing needs judging) the server asks with JudgeConsentRequest.
   */
  askConsent?: boolean;
  progressToken?: string;
}

/**
 * The fields a judgement shares with core's JudgedQuestion (`ves-lens judge --json`), under its names and types, never
 * null here: `predicted_sql`, the prediction as it was judged (to match it with a report's row), and `judge`, core's
 * verdict (score, branch, the Prover's and Refuter's answers, the Refuter's flags, errors, tokens).
 */
export type JudgedFields = { [Field in 'predicted_sql' | 'judge']: NonNullable<JudgedQuestion[Field]> };

export interface JudgeResult extends JudgedFields {
  question: QuestionInfo;
  /** Both SQLs, formatted for reading (the judge saw them as they are). */
  predSql: string;
  goldSql: string;
  /** The model's id, e.g. `vscode-lm:copilot/gpt-4o` or `openai-compatible:gpt-4o`. */
  model: string;
  elapsedMs: number;
}

/** Server → client: one chat completion with a vscode.lm model (the extension host owns that API). */
export interface ChatCompletionParams {
  /** User and assistant turns only: vscode.lm has no system role, so the server folds it into the first user message. */
  messages: UserOrAssistantMessage[];
  /** The model the client chose when the judgement started (vscode.lm's LanguageModelChat.id). */
  modelId: string;
}

/** core's chat reply: the text, and tokens as the model's own tokenizer counts them (vscode.lm reports no usage). */
export type ChatCompletionResult = ChatReply;

/**
 * Error codes of a failed ChatCompletionRequest. `unavailable` (no chat model, consent refused, blocked, not
 * found) would fail every request alike: the judgement stops with the client's message. `failed`: this
 * request only (a model_error for the pair).
 */
export const ChatCompletionErrors = { unavailable: -32001, failed: -32002 } as const;

/** Server → client: may prompts go to this endpoint? Asked once per judgement, just before its first real request. */
export interface JudgeConsentParams {
  url: string;
  model: string;
}

/** Judges a prediction with a chat model (ROSE's Prover/Refuter by default); progress as StepProgress. */
export const JudgeRequest = new RequestType<JudgeParams, JudgeResult, void>('vesLens/judge');
/** Server → client: a completion from a vscode.lm chat model (see JudgeModelSpec). */
export const ChatCompletionRequest = new RequestType<ChatCompletionParams, ChatCompletionResult, void>('vesLens/chatCompletion');
/** Server → client: the person's consent to send prompts to an endpoint (true: allowed; see JudgeParams.askConsent). */
export const JudgeConsentRequest = new RequestType<JudgeConsentParams, boolean, void>('vesLens/judgeConsent');
