import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { TechniqueName, TechniqueScore } from '../../src/core/results/sqlmorph/types';

/** SQLMorph's four embedding-free techniques in CPython (test/oracles/sqlmorph_oracle.py). */
export const ORACLE = path.join(__dirname, '..', 'oracles', 'sqlmorph_oracle.py');

export const EXACT_TECHNIQUES: TechniqueName[] = [
  'execution_accuracy',
  'exact_column_and_exact_cell',
  'exact_column_and_partial_cell',
  'no_column_and_partial_cell',
];

/** One pair's reference: `<technique>[:penalize|:no-penalize]` → scores, or `{raises}` where SQLMorph's code raises. */
export type OracleAnswer = Record<string, { EX?: number; EXP?: number; EXR?: number; F1?: number; raises?: string }> & {
  columns?: { gold: string[]; pred: string[] };
};

export interface OraclePair {
  db: string;
  pred: string;
  gold: string;
}

/** Runs the oracle on the pairs (asynchronously, so the TypeScript side can run meanwhile). */
export function runOracle(pairs: OraclePair[]): Promise<OracleAnswer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [ORACLE], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`oracle exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify({ pairs }));
  });
}

/** The oracle's key for a technique under a penalize setting. */
export function oracleKey(name: TechniqueName, penalize: boolean): string {
  return name.startsWith('exact_column') ? `${name}:${penalize ? 'penalize' : 'no-penalize'}` : name;
}

/**
 * Differences between VES Lens and the oracle for one pair: exact equality (Object.is) of every number where
 * SQLMorph returns one; where SQLMorph raises, VES Lens must give a value and say so in a note.
 */
export function compareWithOracle(
  label: string,
  ours: Partial<Record<TechniqueName, TechniqueScore>> | undefined,
  notes: readonly string[],
  reference: OracleAnswer,
  penalize: boolean,
  techniques: readonly TechniqueName[] = EXACT_TECHNIQUES,
): string[] {
  const problems: string[] = [];
  for (const name of techniques) {
    const expected = reference[oracleKey(name, penalize)];
    const actual = ours?.[name] as Record<string, number | string> | undefined;
    if (!actual) {
      problems.push(`${label} ${name}: not scored`);
      continue;
    }
    if ('error' in actual) {
      problems.push(`${label} ${name}: error ${actual.error}`);
      continue;
    }
    if (expected.raises) {
      if (!notes.some((n) => n.startsWith(`${name}:`) && /SQLMorph's code raises/.test(n)))
        problems.push(`${label} ${name}: SQLMorph raises ${expected.raises}, no note says so`);
      continue;
    }
    for (const key of ['EX', 'EXP', 'EXR', 'F1'] as const) {
      if (expected[key] === undefined && actual[key] === undefined) continue;
      if (!Object.is(expected[key], actual[key])) problems.push(`${label} ${name} ${key}: ${actual[key]}, SQLMorph ${expected[key]}`);
    }
  }
  return problems;
}
