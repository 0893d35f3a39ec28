// Regenerates every "real output" block of README.md and of the pages under docs/ from the shared BIRD files: each
// block is marked (once, in one of those files)
//   <!-- output:NAME -->
//   ```
//   ...
//   ```
//   <!-- /output:NAME -->
// and this script runs the documented commands with the built CLI (node esbuild.js first), then rewrites what is
// between the markers. Nothing else in the pages is touched.
//
//   node scripts/readme-outputs.mjs                 every block
//   node scripts/readme-outputs.mjs compare rerank  only these (a block that needs another's files runs it too)
//   node scripts/readme-outputs.mjs --list          the block names, one a line
//
// The data: VES_LENS_BIRD_DATA, else ../shared/data/bird-minidev beside the clone. The mini-dev question file is
// mini_dev_sqlite.v1-2024.json with mini_dev_sqlite_gold.v1-2024.sql: the official prediction files line up with
// that version by position (the v3 file reorders its last 16 questions and changes two gold queries). Timed numbers
// (VES, R-VES, ms, speed-ups) move a little from run to run, as the README says beside each block.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = join(REPO, 'README.md');
const DOCS = join(REPO, 'docs');
const CLI = join(REPO, 'bin', 'ves-lens.js');
const DATA = process.env.VES_LENS_BIRD_DATA ?? resolve(REPO, '..', 'shared', 'data', 'bird-minidev');
// Paths relative to DATA, where the commands run, so the outputs name the files as the README's commands do.
const QUESTIONS = 'questions/mini_dev_sqlite.v1-2024.json';
const GOLD = 'questions/mini_dev_sqlite_gold.v1-2024.sql';
const DATABASES = 'databases';
const OFFICIAL = 'predictions/minidev-official';
const PREDICTIONS = {
  gpt4: join(OFFICIAL, 'predict_mini_dev_gpt-4_sqlite.json'),
  cot: join(OFFICIAL, 'predict_mini_dev_gpt-4-o_cot_SQLite.json'),
  llama: join(OFFICIAL, 'predict_mini_dev_meta-llama-3-8b-instruct-2_sqlite.json'),
  mixtral: join(OFFICIAL, 'predict_mini_dev_mistralai-mixtral-8x7b-instru-4_sqlite.json'),
};
const SUPERHERO = join(DATABASES, 'superhero', 'superhero.sqlite');
const MINIDEV = ['--questions', QUESTIONS, '--gold', GOLD, '--db-root', DATABASES];

/** Runs the built CLI (colours off) in `cwd` and returns its standard output; a failure stops the script, saying which command. */
function cli(args, { cwd = DATA } = {}) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`  ves-lens ${args[0]} … exit ${result.status} (${seconds} s)\n`);
  if (result.status !== 0) throw new Error(`ves-lens ${args.join(' ')} exited ${result.status ?? result.signal}:\n${result.stderr}`);
  return result.stdout;
}

const lines = (text) => compactTables(text.replace(/\s+$/, '').split('\n'));

/** Tables without the rules between body rows (the one under the heading stays): the same numbers, half the lines. */
function compactTables(all) {
  return all.filter((line, i) => !(line.startsWith('├') && !isHeading(all, i - 1)));
}
const isHeading = (all, i) => all[i]?.startsWith('│') && all[i - 1]?.startsWith('┌');

/** A list under a header line ("now correct (26)") cut to its first `keep` items, then "  ..." when there are more. */
function cutList(all, header, keep) {
  const at = all.findIndex((line) => header.test(line));
  if (at === -1) return [];
  let end = at + 1;
  while (end < all.length && /^ {2}\S/.test(all[end])) end++;
  const items = all.slice(at + 1, end).filter((line) => !/^ {2}and \d+ more/.test(line));
  return [all[at], ...items.slice(0, keep), ...(items.length > keep ? ['  ...'] : [])];
}

/** The lines from the first one matching `from` through the first one after it matching `to` (inclusive). */
function between(all, from, to) {
  const start = all.findIndex((line) => from.test(line));
  if (start === -1) return [];
  const end = all.findIndex((line, i) => i > start && to.test(line));
  return all.slice(start, end === -1 ? all.length : end + 1);
}

/** The first `count` entries of an audit's ranked list ("1. question ..." and its indented lines), each whole. */
function rankedEntries(all, count) {
  const start = all.findIndex((line) => /^Gold SQL worth another look: \d+/.test(line));
  if (start === -1) return [];
  const out = [all[start]];
  let entries = 0;
  for (const line of all.slice(start + 1)) {
    if (/^\d+\. question /.test(line) && ++entries > count) {
      out.push('...');
      break;
    }
    if (line.trim() === '' && entries > 0) break;
    out.push(line);
  }
  return out;
}

/** Files made once per run and shared by the blocks that need them (the re-ranked file, the eval reports). */
function makeFiles(work) {
  const made = new Map();
  const once = (name, make) => () => {
    if (!made.has(name)) made.set(name, make());
    return made.get(name);
  };
  const files = {
    rerank: once('rerank', () => {
      const out = join(work, 'm4.json');
      const stdout = cli([
        'rerank',
        '--questions',
        QUESTIONS,
        '--db-root',
        DATABASES,
        '--measure',
        '--out',
        out,
        '--predictions',
        ...Object.values(PREDICTIONS),
      ]);
      return { out, stdout };
    }),
    baseline: once('baseline', () => {
      const json = join(work, 'baseline.json');
      cli(['eval', ...MINIDEV, '--predictions', PREDICTIONS.gpt4, '--json', json, '--no-progress']);
      return json;
    }),
    m4Eval: once('m4Eval', () => {
      const json = join(work, 'm4-eval.json');
      cli(['eval', ...MINIDEV, '--predictions', files.rerank().out, '--json', json, '--no-progress']);
      return json;
    }),
  };
  return files;
}

/** Each block: what it shows, and how it is made from the shared files. */
export const BLOCKS = [
  {
    name: 'eval-sample',
    what: '`npm run sample`: eval of the sample superhero questions (the repository copy of the shared superhero database)',
    make() {
      const all = lines(
        cli(
          [
            'eval',
            '--questions',
            'sample/mini_dev_superhero.json',
            '--gold',
            'sample/mini_dev_superhero_gold.sql',
            '--predictions',
            'sample/predict_gpt-4_superhero.json',
            '--db-root',
            'sample',
            '--no-progress',
          ],
          { cwd: REPO },
        ),
      );
      const start = all.findIndex((line) => line.startsWith('┌'));
      const efficiency = all.findIndex((line) => /^efficiency \(/.test(line));
      const head = all.slice(start, efficiency === -1 ? all.length : efficiency);
      if (efficiency === -1) return head;
      // The efficiency notes: each list cut to two questions.
      const tail = [all[efficiency]];
      for (let i = efficiency + 1; i < all.length; i++) {
        if (!/^ {2}\S/.test(all[i])) break;
        tail.push(all[i]);
        let shown = 0;
        while (i + 1 < all.length && /^ {4}\S/.test(all[i + 1])) {
          i++;
          if (shown++ < 2) tail.push(all[i]);
          else if (shown === 3) tail.push('    ...');
        }
      }
      return [...head, ...tail];
    },
  },
  {
    name: 'explain',
    what: '`explain` of a correlated EXISTS on the shared superhero database',
    make: () =>
      lines(
        cli([
          'explain',
          '--db',
          SUPERHERO,
          "SELECT superhero_name FROM superhero AS T1 WHERE EXISTS (SELECT 1 FROM hero_power AS T2 INNER JOIN superpower AS T3 ON T2.power_id = T3.id WHERE T3.power_name = 'Super Strength' AND T1.id = T2.hero_id)",
        ]),
      ),
  },
  {
    name: 'compare',
    what: '`compare` of GPT-4 and GPT-4o (chain of thought), each `eval --metrics ex,f1` on mini-dev v1-2024',
    make(work) {
      const report = (name, predictions) => {
        const json = join(work, `${name}.json`);
        cli(['eval', ...MINIDEV, '--predictions', predictions, '--metrics', 'ex,f1', '--json', json, '--no-progress']);
        return json;
      };
      const all = lines(cli(['compare', report('gpt4', PREDICTIONS.gpt4), report('cot', PREDICTIONS.cot)]));
      return [
        ...between(all, /^┌/, /^EX, McNemar/),
        ...cutList(all, /^now correct \(/, 1),
        ...cutList(all, /^now wrong \(/, 3),
        ...all.filter((line) => line.startsWith('note: ')),
      ];
    },
  },
  {
    name: 'rerank',
    what: '`rerank --measure` over the four official files, then `eval` (timed) and `compare` against GPT-4 alone',
    make(work, files) {
      const picked = lines(files.rerank().stdout).filter((line) => line.trim() !== '');
      const all = lines(cli(['compare', files.baseline(), files.m4Eval()]));
      const rows = all.filter((line) => /^│ (EX|VES|R-VES|predicted ms \(mean\)) /.test(line));
      return [...picked, '', ...rows, ...all.filter((line) => line.startsWith('EX, McNemar'))];
    },
  },
  {
    name: 'audit',
    what: '`audit` of the mini-dev gold with the baseline and re-ranked reports as --predictions',
    make(work, files) {
      const all = lines(cli(['audit', ...MINIDEV, '--predictions', files.baseline(), files.m4Eval(), '--no-progress']));
      const summary = all.findIndex((line) => /gold SQL audited/.test(line));
      const notAudited = all.filter((line) => line.startsWith('not audited'));
      return [all[summary], ...notAudited, '', ...rankedEntries(all, 3)];
    },
  },
  {
    name: 'audit-correctness',
    what: '`audit --correctness --no-measure` of the mini-dev gold with the four official files as --predictions',
    make() {
      const all = lines(
        cli(['audit', ...MINIDEV, '--correctness', '--no-measure', '--predictions', ...Object.values(PREDICTIONS), '--no-progress']),
      );
      return [...all.filter((line) => line.startsWith('correctness (')), '', ...rankedEntries(all, 1)];
    },
  },
];

/** The pages that may hold output blocks: README.md and every Markdown file under docs/. */
export function pages() {
  const found = [README];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) found.push(join(dir, entry.name));
    }
  };
  if (existsSync(DOCS)) walk(DOCS);
  return found;
}

/** The one page that marks block `name`; throws when none or several do. */
export function pageOf(name) {
  const holding = pages().filter((page) => readFileSync(page, 'utf8').includes(`<!-- output:${name} -->`));
  if (holding.length !== 1)
    throw new Error(
      `block ${name} is marked in ${holding.length ? holding.map((p) => relative(REPO, p)).join(', ') : 'no page'} (README.md or docs/): it must be in exactly one`,
    );
  return holding[0];
}

/** Replaces the text between one block's markers with a fenced block of `body`; throws when the markers are missing. */
export function replaceBlock(readme, name, body) {
  const open = `<!-- output:${name} -->`;
  const close = `<!-- /output:${name} -->`;
  const start = readme.indexOf(open);
  const end = readme.indexOf(close);
  if (start === -1 || end === -1 || end < start) throw new Error(`no ${open} … ${close} markers`);
  return `${readme.slice(0, start + open.length)}\n\`\`\`\n${body.join('\n')}\n\`\`\`\n${readme.slice(end)}`;
}

function main(argv) {
  if (argv.includes('--list')) {
    process.stdout.write(BLOCKS.map((b) => b.name).join('\n') + '\n');
    return 0;
  }
  const unknown = argv.filter((name) => !BLOCKS.some((b) => b.name === name));
  if (unknown.length) {
    process.stderr.write(`readme-outputs: no block named ${unknown.join(', ')} (blocks: ${BLOCKS.map((b) => b.name).join(', ')})\n`);
    return 2;
  }
  if (!existsSync(join(REPO, 'dist', 'cli.js'))) {
    process.stderr.write('readme-outputs: build the CLI first (node esbuild.js)\n');
    return 2;
  }
  if (!existsSync(join(DATA, QUESTIONS))) {
    process.stderr.write(`readme-outputs: the shared BIRD data is not at ${DATA} (set VES_LENS_BIRD_DATA)\n`);
    return 2;
  }
  const chosen = argv.length ? BLOCKS.filter((b) => argv.includes(b.name)) : BLOCKS;
  // Every chosen block's page found before anything runs: a missing marker fails in a second, not after minutes.
  const where = new Map(chosen.map((block) => [block.name, pageOf(block.name)]));
  const work = mkdtempSync(join(tmpdir(), 'ves-lens-readme-'));
  const written = new Set();
  try {
    const files = makeFiles(work);
    for (const block of chosen) {
      const page = where.get(block.name);
      process.stderr.write(`${block.name}: ${block.what}\n`);
      const body = block.make(work, files);
      if (body.length === 0) throw new Error(`${block.name}: the command's output had none of the lines this block shows`);
      // Read the page again right before writing: other blocks (or people) may have changed it meanwhile.
      writeFileSync(page, replaceBlock(readFileSync(page, 'utf8'), block.name, body));
      written.add(relative(REPO, page));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stderr.write(`rewrote ${chosen.length} block${chosen.length === 1 ? '' : 's'} of ${[...written].join(', ')}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`readme-outputs: ${error.message}\n`);
    process.exitCode = 1;
  }
}
