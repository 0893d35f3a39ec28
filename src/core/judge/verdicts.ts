import { booleanField, textField } from '../llm/jsonReply';
import { ReplyReader } from './ask';
import { FlexVerdict, ProverVerdict, RefuterVerdict } from './types';

function missing(key: string, value: Record<string, unknown>): { ok: false; error: string } {
  const keys = Object.keys(value);
  const found =
    key in value
      ? `its "${key}" is ${JSON.stringify(value[key])?.slice(0, 40)}`
      : `it has ${keys.length ? `only the keys ${keys.map((k) => `"${k}"`).join(', ')}` : 'no keys'}`;
  return { ok: false, error: `the JSON object has no boolean "${key}" (${found})` };
}

export const PROVER_KEYS =
  '"expected_answer", "sql_description", "reason", "verdict" (true or false) and, if verdict is true, "result_evidence"';
export const REFUTER_KEYS = '"judgement", "overturn" (true or false), "ambiguity" and "gold_correct" (true or false)';
export const FLEX_KEYS = '"reason" and "correct" (true or false)';

export const readProver: ReplyReader<ProverVerdict> = (value) => {
  const verdict = booleanField(value, 'verdict');
  if (verdict === undefined) return missing('verdict', value);
  const answer: ProverVerdict = {
    verdict,
    reason: textField(value, 'reason'),
    expected_answer: textField(value, 'expected_answer'),
    sql_description: textField(value, 'sql_description'),
  };
  const evidence = textField(value, 'result_evidence') || textField(value, 'evidence');
  if (evidence) answer.result_evidence = evidence;
  return { ok: true, value: answer };
};

/** `ambiguous question`, `ambiguous schema`, both, or `na`, whatever the spelling or the shape (a list). */
export function normalizeAmbiguity(raw: unknown): string {
  const text = (Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '').toLowerCase();
  const kinds = [];
  if (/question/.test(text)) kinds.push('ambiguous question');
  if (/schema/.test(text)) kinds.push('ambiguous schema');
  return kinds.length ? kinds.join(', ') : 'na';
}

export const readRefuter: ReplyReader<RefuterVerdict> = (value) => {
  // Only `overturn`: ROSE's own field, `verdict`, has a polarity its prompt states both ways.
  const overturn = booleanField(value, 'overturn');
  if (overturn === undefined) return missing('overturn', value);
  return {
    ok: true,
    value: {
      overturn,
      judgement: textField(value, 'judgement') || textField(value, 'judgment'),
      ambiguity: normalizeAmbiguity(value.ambiguity),
      gold_correct: booleanField(value, 'gold_correct') ?? null,
    },
  };
};

export const readFlex: ReplyReader<FlexVerdict> = (value) => {
  const correct = booleanField(value, 'correct');
  if (correct === undefined) return missing('correct', value);
  return { ok: true, value: { correct, reason: textField(value, 'reason') } };
};
