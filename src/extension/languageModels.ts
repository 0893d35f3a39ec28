import * as vscode from 'vscode';
import { LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import { ChatCompletionErrors, ChatCompletionParams, ChatCompletionResult, JudgeModelSpec } from '../shared/protocol';
import { JudgeSettings } from '../shared/settings';

/**
 * The Judge's `vscode-lm` provider: VS Code's language-model API, which only the extension host can reach. The
 * server asks for each completion (ChatCompletionRequest); this answers it with the chat model chosen when the
 * judgement started. VS Code asks the person for consent on an extension's first request (the Judge runs only
 * from a person's click, as the API requires).
 */

/** Where chat models come from: `vscode.lm`, or (tests only) a stand-in; see `useChatModelsForTests`. */
export interface ChatModelSource {
  selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]>;
}

let source: ChatModelSource = vscode.lm;

/**
 * The test seam: VS Code 1.90–1.100 has no stable API to register a chat model provider (it was proposed
 * until 1.104), so the extension-host test hands in models that implement `LanguageModelChat` (through the
 * extension's exported API). Undefined restores `vscode.lm`.
 */
export function useChatModelsForTests(models: ChatModelSource | undefined): void {
  source = models ?? vscode.lm;
}

/** A failure a person can act on: no stack, the message says what to do. */
export class LanguageModelUnavailable extends Error {}

const NO_MODEL_HINT =
  'install a chat model extension (e.g. GitHub Copilot Chat) and sign in, or set "vesLens.judge.provider" to "openai" with vesLens.judge.url and vesLens.judge.model (an OpenAI-compatible endpoint; "VES Lens: Set Judge API Key" stores its key)';

/** Models picked at the start of a judgement, by id, for the server's requests that follow. */
const chosen = new Map<string, vscode.LanguageModelChat>();

/** The first chat model matching the settings' vendor and family; or says there is none and what to do. */
export async function chooseChatModel(settings: JudgeSettings): Promise<Extract<JudgeModelSpec, { provider: 'vscode-lm' }>> {
  const selector: vscode.LanguageModelChatSelector = {};
  if (settings.vendor) selector.vendor = settings.vendor;
  if (settings.family) selector.family = settings.family;
  let models: vscode.LanguageModelChat[];
  try {
    models = await source.selectChatModels(selector);
  } catch (error) {
    throw new LanguageModelUnavailable(`VS Code's chat models cannot be listed (${(error as Error)?.message ?? error}): ${NO_MODEL_HINT}`);
  }
  const model = models[0];
  if (!model) {
    const wanted = [settings.vendor && `vendor "${settings.vendor}"`, settings.family && `family "${settings.family}"`]
      .filter(Boolean)
      .join(', ');
    throw new LanguageModelUnavailable(
      `no chat model is available in VS Code${wanted ? ` for ${wanted} (vesLens.judge.vendor / family)` : ''}: ${NO_MODEL_HINT}`,
    );
  }
  chosen.set(model.id, model);
  return { provider: 'vscode-lm', vendor: model.vendor, family: model.family, id: model.id, name: model.name };
}

/** A LanguageModelError as a sentence (NoPermissions, NotFound, Blocked); undefined for other errors. */
function languageModelProblem(error: unknown, name: string): string | undefined {
  if (!(error instanceof vscode.LanguageModelError)) return undefined;
  if (error.code === vscode.LanguageModelError.NoPermissions.name)
    return `VES Lens may not use ${name}: the request was not allowed (allow it when VS Code asks, or choose another model with vesLens.judge.vendor / family, or use "vesLens.judge.provider": "openai")`;
  if (error.code === vscode.LanguageModelError.NotFound.name)
    return `${name} is no longer available: run Judge again to pick a model, or check vesLens.judge.vendor / family`;
  if (error.code === vscode.LanguageModelError.Blocked.name)
    return `${name} refused the request (blocked, e.g. a quota was reached): ${error.message || 'try again later'}, or use "vesLens.judge.provider": "openai"`;
  return undefined;
}

async function tokens(
  model: vscode.LanguageModelChat,
  text: string | vscode.LanguageModelChatMessage,
  token: vscode.CancellationToken,
): Promise<number> {
  try {
    return await model.countTokens(text, token);
  } catch {
    return 0;
  }
}

/** Answers the server's ChatCompletionRequest: the system role folded in, the reply streamed, cancellation honoured. */
export async function answerChatCompletion(params: ChatCompletionParams, token: vscode.CancellationToken): Promise<ChatCompletionResult> {
  const model = chosen.get(params.modelId);
  if (!model)
    throw new ResponseError(ChatCompletionErrors.unavailable, 'the chat model chosen for this judgement is gone: run Judge again');
  // The server sent user and assistant turns only (vscode.lm has no system role: it folded it in).
  const messages = params.messages.map((m) =>
    m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.content) : vscode.LanguageModelChatMessage.User(m.content),
  );
  try {
    const response = await model.sendRequest(
      messages,
      { justification: "VES Lens judges whether a SQL prediction answers its BIRD question (ROSE's Prover and Refuter)." },
      token,
    );
    let text = '';
    for await (const chunk of response.text) text += chunk;
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
    let promptTokens = 0;
    for (const message of messages) promptTokens += await tokens(model, message, token);
    return { text, usage: { promptTokens, completionTokens: await tokens(model, text, token) } };
  } catch (error) {
    if (error instanceof ResponseError) throw error;
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
    const problem = languageModelProblem(error, model.name);
    if (problem) throw new ResponseError(ChatCompletionErrors.unavailable, problem);
    throw new ResponseError(ChatCompletionErrors.failed, (error as Error)?.message ?? String(error));
  }
}
