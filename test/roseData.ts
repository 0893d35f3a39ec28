/** ROSE's public data in shared/ (labels and verdicts from CedricPei/ROSE; see its PROVENANCE.md), and replays of it. */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChatMessage } from '../src/core/llm/chatModel';
import { REPO_ROOT } from './helpers';

export const ROSE_DATA = process.env.VES_LENS_ROSE_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data', 'rose');

/** Skip reason when the data is absent on a developer machine; in CI its absence is a failure. */
export function roseDataMissing(): string | false {
  if (fs.existsSync(ROSE_DATA)) return false;
  if (process.env.CI) throw new Error(`ROSE data not found at ${ROSE_DATA}`);
  return `ROSE data not found at ${ROSE_DATA}`;
}

export interface RosePair {
  question_id: number;
  db_id: string;
  question: string;
  evidence: string;
  predicted_sql: string;
  gold_sql: string;
  label: boolean;
}
export interface RoseRow {
  question_id: number;
  score: number;
  prover_result: boolean | null;
  refuter_result: boolean | null;
}

export const ROSE_VEC_DATABASES = ['superhero', 'toxicology', 'student_club'];

export function roseVecPairs(): RosePair[] {
  const all: RosePair[] = JSON.parse(fs.readFileSync(path.join(ROSE_DATA, 'rose-vec-bird.json'), 'utf8'));
  return all.filter((p) => ROSE_VEC_DATABASES.includes(p.db_id));
}

/** A model that answers as ROSE's gemini-2.5-pro run did for the question in the prompt: its recorded verdicts. */
export function replayOfRose(pairs: readonly RosePair[], rows: ReadonlyMap<number, RoseRow>) {
  const byQuestion = new Map(pairs.map((p) => [p.question.trim(), p.question_id]));
  assert.equal(byQuestion.size, pairs.length, 'question texts identify the pairs');
  return (messages: readonly ChatMessage[]): string => {
    const user = messages.find((m) => m.role === 'user')!.content;
    const question = /###### Question\n([\s\S]*?)\n\n######/.exec(user)![1].trim();
    const row = rows.get(byQuestion.get(question)!)!;
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    if (system.startsWith('You are the Prover')) {
      if (row.prover_result === null) return 'ROSE never asked the Prover here';
      return JSON.stringify({ expected_answer: '', sql_description: '', reason: 'as ROSE', verdict: row.prover_result });
    }
    if (row.refuter_result === null) return 'ROSE never asked the Refuter here';
    return JSON.stringify({ judgement: 'as ROSE', overturn: row.refuter_result, ambiguity: 'na', gold_correct: true });
  };
}
