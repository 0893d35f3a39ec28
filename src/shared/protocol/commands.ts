/** The client's commands, and the arguments of those the server's code lenses and code actions invoke. */
import type { QuestionInfo } from './dataset';
import type { VerifyHintParams } from './hints';

/** Commands the server's code lenses and code actions invoke on the client, with their arguments. */
export interface CommandArguments {
  'vesLens.scoreAgainstGold': [uri: string, offset: number, questionId?: number | string, questionIndex?: number];
  'vesLens.explain': [uri: string, offset: number, dbId?: string];
  'vesLens.findFasterEquivalent': [uri: string, offset: number, dbId?: string];
  'vesLens.showHints': [uri: string, line: number];
  'vesLens.applyVerifiedRewrite': [params: VerifyHintParams];
  'vesLens.applyAllRewrites': [uri: string, rule: string];
  'vesLens.timeGold': [question: QuestionInfo];
  'vesLens.judge': [uri: string, offset: number, questionId?: number | string, questionIndex?: number];
}

export const Commands = {
  scoreAgainstGold: 'vesLens.scoreAgainstGold',
  explain: 'vesLens.explain',
  findFasterEquivalent: 'vesLens.findFasterEquivalent',
  showHints: 'vesLens.showHints',
  applyVerifiedRewrite: 'vesLens.applyVerifiedRewrite',
  applyAllRewrites: 'vesLens.applyAllRewrites',
  attachDataset: 'vesLens.attachDataset',
  evaluatePredictionFile: 'vesLens.evaluatePredictionFile',
  compareReports: 'vesLens.compareReports',
  openQuestion: 'vesLens.openQuestion',
  explainGold: 'vesLens.explainGold',
  timeGold: 'vesLens.timeGold',
  judge: 'vesLens.judge',
  setJudgeApiKey: 'vesLens.setJudgeApiKey',
  clearJudgeApiKey: 'vesLens.clearJudgeApiKey',
  setEmbeddingsApiKey: 'vesLens.setEmbeddingsApiKey',
  clearEmbeddingsApiKey: 'vesLens.clearEmbeddingsApiKey',
  setPostgresPassword: 'vesLens.setPostgresPassword',
  clearPostgresPassword: 'vesLens.clearPostgresPassword',
  showOutput: 'vesLens.showOutput',
  restartServer: 'vesLens.restartServer',
  auditGold: 'vesLens.auditGold',
  showGoldAudit: 'vesLens.showGoldAudit',
  showFlaggedOnly: 'vesLens.showFlaggedOnly',
  showAllQuestions: 'vesLens.showAllQuestions',
} as const;

/** A code lens or code action command, typed by its id. */
export function command<K extends keyof CommandArguments>(
  title: string,
  id: K,
  ...args: CommandArguments[K]
): { title: string; command: K; arguments: CommandArguments[K] } {
  return { title, command: id, arguments: args };
}
