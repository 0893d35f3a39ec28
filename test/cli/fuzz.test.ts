import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { CLI, cliEnv, REPO_ROOT, tempDir } from '../helpers';

/**
 * Issue 8, "done when": every input kind (question file, gold file, each prediction format, candidates, the
 * database, option values), each broken every way a file breaks (truncated, bit-flipped, binary, a NUL, a
 * 10 MB single line, another encoding), through the real command line. Whatever happens: no stack trace, no
 * silent exit, exit 0 (done, with output) or 2 (a message that names the file or option), never 1.
 * Seeded, so every run tries the same inputs; a few dozen processes, two at a time.
 */

const SAMPLE = path.join(REPO_ROOT, 'sample');
const SEED = 20_240_817;

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return { next, int: (n: number) => Math.floor(next() * n) };
}

type Mutation = 'truncated' | 'bit-flipped' | 'binary' | 'nul' | '10 MB line' | 'latin-1' | 'utf-16';
const MUTATIONS: Mutation[] = ['truncated', 'bit-flipped', 'binary', 'nul', '10 MB line', 'latin-1', 'utf-16'];

function mutate(original: Buffer, how: Mutation, random: ReturnType<typeof generator>): Buffer {
  switch (how) {
    case 'truncated':
      return original.subarray(0, 1 + random.int(original.length - 1));
    case 'bit-flipped': {
      const copy = Buffer.from(original);
      for (let k = 0; k < 1 + random.int(8); k++) {
        const at = random.int(copy.length);
        copy[at] ^= 1 << random.int(8);
      }
      return copy;
    }
    case 'binary':
      return Buffer.from(Array.from({ length: 2048 + random.int(4096) }, () => random.int(256)));
    case 'nul': {
      const at = random.int(original.length);
      return Buffer.concat([original.subarray(0, at), Buffer.from([0]), original.subarray(at)]);
    }
    case '10 MB line': {
      // Ten megabytes without a newline, inside the first line.
      const firstLineEnd = original.indexOf(0x0a) === -1 ? original.length : original.indexOf(0x0a);
      const at = random.int(firstLineEnd + 1);
      return Buffer.concat([original.subarray(0, at), Buffer.alloc(10 * 2 ** 20, 'x'), original.subarray(at)]);
    }
    case 'latin-1':
      return Buffer.from(original.toString('utf8').replace(/superhero/, 'superhéro'), 'latin1');
    case 'utf-16':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(original.toString('utf8'), 'utf16le')]);
  }
}

interface Case {
  name: string;
  args: string[];
  /** What a usage or input error must name: the file's name, or the option. */
  names: string;
  /** Output that proves a run that exited 0 did its work. */
  done: RegExp;
  /** A file that output of a run that exited 0 must name when questions failed on it (a damaged database). */
  namedWhenDone?: string;
}

interface Outcome {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv() });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Runs every case, a few at a time (each is its own process). */
async function runAll(cases: Case[]): Promise<Map<Case, Outcome>> {
  const results = new Map<Case, Outcome>();
  let next = 0;
  const workers = Array.from({ length: Math.min(4, Math.max(2, os.availableParallelism?.() ?? 2)) }, async () => {
    while (next < cases.length) {
      const item = cases[next++];
      results.set(item, await runCli(item.args));
    }
  });
  await Promise.all(workers);
  return results;
}

function check(item: Case, outcome: Outcome): void {
  const context = `${item.name}\n$ ves-lens ${item.args.map((a) => (a.length > 200 ? `${a.slice(0, 40)}…(${a.length} chars)` : a)).join(' ')}\nexit ${outcome.status} ${outcome.signal ?? ''}\nstderr: ${outcome.stderr.slice(0, 2000)}\nstdout: ${outcome.stdout.slice(0, 500)}`;
  assert.equal(outcome.signal, null, `killed: ${context}`);
  assert.ok(outcome.status === 0 || outcome.status === 2, `exit code must be 0 or 2: ${context}`);
  assert.doesNotMatch(outcome.stderr + outcome.stdout, /^\s+at .*(\.js|\.ts|node:internal)/m, `stack trace: ${context}`);
  assert.doesNotMatch(outcome.stderr, /unexpected error/, `a bug: ${context}`);
  if (outcome.status === 0) {
    assert.match(outcome.stdout, item.done, `exit 0 but no result printed (silent exit): ${context}`);
    if (item.namedWhenDone)
      assert.ok(
        outcome.stdout.includes(item.namedWhenDone) || !/gold error/.test(outcome.stdout),
        `a damaged database must be named: ${context}`,
      );
  } else {
    assert.match(outcome.stderr, /error: /, `exit 2 without a message: ${context}`);
    assert.ok(outcome.stderr.includes(item.names), `the message must name ${item.names}: ${context}`);
  }
}

describe(`fuzz: every input kind, broken every way (seed ${SEED})`, () => {
  const cases: Case[] = [];
  let results: Map<Case, Outcome>;

  before(async () => {
    const dir = tempDir('ves-lens-fuzz-');
    const random = generator(SEED);
    const questions = JSON.parse(fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero.json'), 'utf8')).slice(0, 6);
    const gold = fs.readFileSync(path.join(SAMPLE, 'mini_dev_superhero_gold.sql'), 'utf8').split('\n').slice(0, 6).join('\n') + '\n';
    const object = Object.fromEntries(
      Object.entries(JSON.parse(fs.readFileSync(path.join(SAMPLE, 'predict_gpt-4_superhero.json'), 'utf8'))).slice(0, 6),
    );
    const originals = {
      questions: Buffer.from(JSON.stringify(questions, null, 2)),
      gold: Buffer.from(gold),
      'official object': Buffer.from(JSON.stringify(object, null, 2)),
      'JSON list': Buffer.from(
        JSON.stringify(
          questions.map((q: { question_id: number; SQL: string }) => ({ question_id: q.question_id, predicted_sql: q.SQL })),
          null,
          2,
        ),
      ),
      'one SQL a line': Buffer.from(questions.map((q: { SQL: string }) => q.SQL).join('\n') + '\n'),
      candidates: Buffer.from(questions.map((q: { SQL: string }) => `${q.SQL};`).join('\n') + '\n'),
      database: fs.readFileSync(path.join(SAMPLE, 'superhero', 'superhero.sqlite')),
    };
    const clean = (name: string, content: Buffer) => {
      const file = path.join(dir, 'clean', name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      if (!fs.existsSync(file)) fs.writeFileSync(file, content);
      return file;
    };
    const q = clean('q.json', originals.questions);
    const p = clean('p.json', originals['official object']);
    const dbRoot = path.join(dir, 'clean', 'root');
    clean(path.join('root', 'superhero', 'superhero.sqlite'), originals.database);
    const evalTail = ['--metrics', 'ex,f1', '--timeout', '10', '--no-progress'];
    const TABLE = /│ count /;

    let n = 0;
    for (const [kind, original] of Object.entries(originals)) {
      for (const how of MUTATIONS) {
        const id = `${++n}-${how.replace(/\W+/g, '-')}`;
        const content = mutate(original, how, random);
        const name = `${kind.replace(/\W+/g, '-')}-${id}`;
        if (kind === 'database') {
          const root = path.join(dir, `root-${id}`);
          const file = path.join(root, 'superhero', 'superhero.sqlite');
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, content);
          cases.push({
            name: `eval, database ${how}`,
            args: ['eval', '--questions', q, '--predictions', p, '--db-root', root, ...evalTail],
            names: 'superhero.sqlite',
            done: TABLE,
            namedWhenDone: file,
          });
          cases.push({
            name: `explain --db, database ${how}`,
            args: ['explain', '--db', file, 'SELECT COUNT(*) FROM superhero'],
            names: 'superhero.sqlite',
            done: /QUERY PLAN|no plan/,
          });
          continue;
        }
        const extension = kind === 'gold' ? '.sql' : kind === 'one SQL a line' ? '.txt' : kind === 'candidates' ? '.sql' : '.json';
        const file = path.join(dir, `${name}${extension}`);
        fs.writeFileSync(file, content);
        const base = path.basename(file);
        if (kind === 'questions')
          cases.push({
            name: `questions ${how}`,
            args: ['eval', '--questions', file, '--predictions', p, '--db-root', dbRoot, ...evalTail],
            names: base,
            done: TABLE,
          });
        else if (kind === 'gold')
          cases.push({
            name: `gold ${how}`,
            args: ['eval', '--questions', q, '--predictions', p, '--gold', file, '--db-root', dbRoot, ...evalTail],
            names: base,
            done: TABLE,
          });
        else if (kind === 'candidates')
          cases.push({
            name: `rerank candidates ${how}`,
            args: ['rerank', '--db', path.join(dbRoot, 'superhero', 'superhero.sqlite'), '--candidates', file, '--timeout', '10'],
            names: base,
            done: /│ rank/,
          });
        else
          cases.push({
            name: `${kind} predictions ${how}`,
            args: ['eval', '--questions', q, '--predictions', file, '--db-root', dbRoot, ...evalTail],
            names: base,
            done: TABLE,
          });
      }
    }

    // Option values: broken numbers, choices and lists (an argument cannot hold a NUL, nor 10 MB: 100 KB then).
    const values = (valid: string) => [
      valid.slice(0, 1 + random.int(valid.length)),
      valid.replace(/\d/, (d) => String.fromCharCode(d.charCodeAt(0) ^ (1 << random.int(7)))),
      '\u00ff\u00fe\u0001',
      'x'.repeat(100_000),
      '３０',
      '-1',
      '0',
      '1e999',
      '',
    ];
    const db = path.join(dbRoot, 'superhero', 'superhero.sqlite');
    const optionCases: [string, (value: string) => string[], string][] = [
      [
        '--timeout',
        (v) => ['eval', '--questions', q, '--predictions', p, '--db-root', dbRoot, '--metrics', 'ex', '--no-progress', '--timeout', v],
        '30',
      ],
      [
        '--max-rows',
        (v) => ['eval', '--questions', q, '--predictions', p, '--db-root', dbRoot, '--metrics', 'ex', '--no-progress', '--max-rows', v],
        '500000',
      ],
      ['--metrics', (v) => ['eval', '--questions', q, '--predictions', p, '--db-root', dbRoot, '--no-progress', '--metrics', v], 'ex,f1'],
      ['--timeout', (v) => ['hints', '--db', db, '--timeout', v, 'SELECT 1'], '30'],
      ['--max-rows', (v) => ['rerank', '--db', db, '--candidates', p, '--max-rows', v], '1000'],
    ];
    for (const [flag, args, valid] of optionCases) {
      for (const value of values(valid)) {
        const command = args(value)[0];
        cases.push({
          name: `${command} ${flag} ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`,
          args: args(value),
          names: flag,
          done: command === 'hints' ? /hints? in/ : /│ (count|rank) /,
        });
      }
    }
    for (const [flag, value] of [
      ['--timing', 'officia'],
      ['--gold-from', 'prediction\u00e9'],
    ] as const) {
      cases.push({
        name: `eval ${flag} ${value}`,
        args: ['eval', '--questions', q, '--predictions', p, '--db-root', dbRoot, '--no-progress', flag, value],
        names: flag,
        done: /│ count /,
      });
    }

    results = await runAll(cases);
  });

  it('no stack trace, no silent exit, exit 0 or 2, and a message that names the file or option', (t) => {
    if (process.env.VES_LENS_FUZZ_VERBOSE) {
      for (const item of cases) {
        const r = results.get(item)!;
        t.diagnostic(
          `${item.name} → ${r.status}: ${(r.status === 2 ? r.stderr : r.stdout.split('\n').slice(-3).join(' | ')).trim().slice(0, 160)}`,
        );
      }
    }
    assert.ok(cases.length > 80, `${cases.length} cases`);
    const failures: string[] = [];
    for (const item of cases) {
      try {
        check(item, results.get(item)!);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    assert.deepEqual(failures, [], failures.join('\n\n'));
    const codes = [...results.values()].map((r) => r.status);
    assert.ok(codes.includes(0) && codes.includes(2), 'both outcomes occur: the fuzz reaches scoring and rejection');
  });
});
