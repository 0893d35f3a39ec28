import type { QuestionResult } from './types';
import { isError, TECHNIQUES, TechniqueName } from '../results/sqlmorph/types';

/** One technique over a group of questions: means × 100 over the questions it scored (errors left out, as SQLMorph's aggregation drops them). */
export interface TechniqueGroupScore {
  /** Questions the technique scored (no `error`). */
  count: number;
  EX: number | null;
  /** Absent for execution_accuracy. */
  EXP?: number | null;
  EXR?: number | null;
  F1?: number | null;
}

/**
 * Each technique's means over the scored questions of a group (skipped ones are not passed in), summed left
 * to right as Python's sum(); undefined when no result carries techniques.
 */
export function summarizeTechniques(results: readonly QuestionResult[]): Partial<Record<TechniqueName, TechniqueGroupScore>> | undefined {
  if (!results.some((r) => r.techniques)) return undefined;
  const out: Partial<Record<TechniqueName, TechniqueGroupScore>> = {};
  for (const name of TECHNIQUES) {
    const scores = results.flatMap((r) => {
      const score = r.techniques?.[name];
      return score && !isError(score) ? [score as Record<string, number>] : [];
    });
    if (!results.some((r) => r.techniques?.[name])) continue;
    const mean = (key: string) => {
      if (scores.length === 0) return null;
      let total = 0;
      for (const s of scores) total += s[key];
      return (total / scores.length) * 100;
    };
    out[name] =
      name === 'execution_accuracy'
        ? { count: scores.length, EX: mean('EX') }
        : { count: scores.length, EX: mean('EX'), EXP: mean('EXP'), EXR: mean('EXR'), F1: mean('F1') };
  }
  return out;
}
