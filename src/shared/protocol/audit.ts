/** The audit slice: every gold SQL of the dataset audited (the Gold Audit panel and the explorer's marks). */
import { ProgressType, RequestType } from 'vscode-languageserver-protocol';
import type { AuditMark } from '../../core/audit/auditMarks';
import type { GoldAudit } from '../../core/audit/goldAudit';
import type { Dataset } from './dataset';

export type { AuditMark } from '../../core/audit/auditMarks';
export type { GoldAudit, GoldAuditEntry } from '../../core/audit/goldAudit';

export interface AuditGoldParams {
  /** Prediction files or `eval --json` reports: how many hold a correct prediction at least 2× faster than each gold. */
  predictionFiles?: string[];
  /** Data scales at which each gold is re-timed alone (setting vesLens.scales); none: no scaled copies. */
  scales?: number[];
  /** Check each gold's correctness on its data (`audit --correctness`); default on: it costs seconds, not minutes. */
  correctness?: boolean;
  /** A token for AuditProgress while it runs. */
  progressToken?: string;
}

export interface AuditGoldResult {
  /**
   * core's audit: every gold with its plan, verified rewrites, measured indexes, growth, faster predictions and its
   * correctness findings on the data; `ranked` the flagged ones.
   */
  audit: GoldAudit;
  /** One mark per flagged question, in rank order (the explorer shows them). */
  marks: AuditMark[];
  /** The page `ves-lens audit --html` writes for the same audit (the panel shows it; "Save as HTML" writes it). */
  html: string;
  /** Cancelled before the end: the gold audited so far. */
  partial: boolean;
  /** Questions in the dataset (all of them, however many were audited). */
  total: number;
  /** Input problems (a report that covers only some questions, ...), each naming its file. */
  problems: string[];
  /** The dataset audited, to tell a saved audit of another dataset. */
  dataset: Dataset;
  sqlite: string;
  /** When it finished (ISO 8601). */
  finishedAt: string;
}

export interface AuditProgressValue {
  message: string;
  /** Gold audited so far, of `total` (prediction files scored first count as 0). */
  done: number;
  total: number;
}

/** Audits every gold SQL of the dataset (long: per-question AuditProgress; cancelled, it returns what it measured). */
export const AuditGoldRequest = new RequestType<AuditGoldParams, AuditGoldResult, void>('vesLens/auditGold');
export const AuditProgress = new ProgressType<AuditProgressValue>();
