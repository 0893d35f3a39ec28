/**
 * Agreement of binary verdicts with expert labels, as ROSE reports it (ROSE's analyze.py): the positive class is "the
 * label says the prediction is correct"; Cohen's κ (unweighted, binary: scikit-learn's cohen_kappa_score),
 * accuracy, Matthews' correlation and the positive class's F1, from the confusion matrix. No npm package
 * computes κ for us, so these are small functions, tested against ROSE's published figures.
 */
export interface Confusion {
  tp: number;
  tn: number;
  fp: number;
  fn: number;
}

export interface AgreementStats extends Confusion {
  n: number;
  /** Cohen's κ; null where undefined (both raters constant and equal: scikit-learn returns NaN). */
  kappa: number | null;
  accuracy: number | null;
  /** Matthews' correlation; 0 where a margin is empty (ROSE's rule). */
  mcc: number;
  precision: number;
  recall: number;
  /** F1 of the positive class; 0 where undefined (ROSE's rule). */
  f1: number;
}

export function confusionOf(pairs: Iterable<{ label: boolean; verdict: boolean }>): Confusion {
  const c: Confusion = { tp: 0, tn: 0, fp: 0, fn: 0 };
  for (const { label, verdict } of pairs) {
    if (label && verdict) c.tp++;
    else if (!label && !verdict) c.tn++;
    else if (verdict) c.fp++;
    else c.fn++;
  }
  return c;
}

export function cohensKappa({ tp, tn, fp, fn }: Confusion): number | null {
  const n = tp + tn + fp + fn;
  if (n === 0) return null;
  const observed = (tp + tn) / n;
  const expected = ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / (n * n);
  return expected === 1 ? null : (observed - expected) / (1 - expected);
}

export function matthews({ tp, tn, fp, fn }: Confusion): number {
  const denominator = Math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
  return denominator === 0 ? 0 : (tp * tn - fp * fn) / denominator;
}

export function agreementStats(c: Confusion): AgreementStats {
  const n = c.tp + c.tn + c.fp + c.fn;
  const precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0;
  const recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0;
  return {
    ...c,
    n,
    kappa: cohensKappa(c),
    accuracy: n ? (c.tp + c.tn) / n : null,
    mcc: matthews(c),
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
  };
}
