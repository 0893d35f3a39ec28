// The embedded PostgreSQL's build of a kept copy: wall time and peak memory (bench/peak-rss.cjs, worker threads
// included) of building the copy of mini-dev's three SQLite databases, each build a process of its own, two ways:
// from an empty cache folder (initdb, then the load) and from one where an earlier build of another folder ran
// initdb already. With `--before DIR` (a checkout of an earlier commit, `npm ci` done there) the same two builds of
// that code run beside these, alternating. Writes bench/results/embeddedBuild.md.
// Usage: npx tsx bench/embeddedBuild.ts [--runs 3] [--before DIR] [--data ../shared/data/bird-minidev]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { machineLine, measuredNodeRun, median } from './machine.cjs';
import { benchOptions } from './serverMinidev';

const root = path.resolve(__dirname, '..');
const { runs, data } = benchOptions();
const args = process.argv.slice(2);
const before = args.includes('--before') ? path.resolve(args[args.indexOf('--before') + 1]) : undefined;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ves-lens-embedded-build-'));
const databases = path.join(data, 'databases');
// A second folder of the same files: another root, so another copy is built.
const otherRoot = path.join(scratch, 'other-root');
fs.cpSync(databases, otherRoot, { recursive: true });

interface Build {
  seconds: number;
  peakMiB: number;
}

/** One build of `dbRoot`'s copy into `cacheDir` by the code in `tree`, in a process of its own. */
function build(tree: string, dbRoot: string, cacheDir: string): Build {
  const module = path.join(tree, 'src', 'core', 'db', 'pglite', 'embeddedCopy');
  const script = `require(${JSON.stringify(module)}).cachedCopy(${JSON.stringify(dbRoot)}, { cacheDir: ${JSON.stringify(cacheDir)}, layout: 'one-database' }).then((copy) => { if (!copy.built) throw new Error('not built'); })`;
  const { seconds, peakMiB } = measuredNodeRun(['--import', 'tsx', '-e', script], { cwd: tree });
  return { seconds, peakMiB };
}

/** The two builds by `tree`: into an empty cache folder, then another root's into the same folder. */
function bothBuilds(tree: string, round: number): [Build, Build] {
  const cacheDir = path.join(scratch, `cache-${path.basename(tree)}-${round}`);
  const first = build(tree, databases, cacheDir);
  const second = build(tree, otherRoot, cacheDir);
  fs.rmSync(cacheDir, { recursive: true, force: true });
  return [first, second];
}

const trees = before ? [root, before] : [root];
const results = new Map(trees.map((tree) => [tree, { empty: [] as Build[], warm: [] as Build[] }]));
const load = () => os.loadavg()[0].toFixed(1);
const loads = [load()];
for (let round = 0; round < runs; round++) {
  // Alternating, starting with a different side each round, so a drift in the machine's load falls on both.
  for (const tree of round % 2 ? [...trees].reverse() : trees) {
    const [empty, warm] = bothBuilds(tree, round);
    results.get(tree)!.empty.push(empty);
    results.get(tree)!.warm.push(warm);
  }
  loads.push(load());
}
fs.rmSync(scratch, { recursive: true, force: true });

const cell = (builds: Build[]) =>
  `${median(builds.map((b) => b.seconds)).toFixed(1)} s, ${Math.round(median(builds.map((b) => b.peakMiB)))} MiB (max ${Math.round(Math.max(...builds.map((b) => b.peakMiB)))})`;
const header = before ? '| build of the copy | this build | before |' : '| build of the copy | this build |';
const line = (label: string, kind: 'empty' | 'warm') => `| ${label} | ${trees.map((tree) => cell(results.get(tree)![kind])).join(' | ')} |`;
const report = [
  "# The embedded PostgreSQL's build of a kept copy",
  '',
  machineLine(),
  '',
  `mini-dev's three SQLite databases (${databases}), ${runs} runs alternating, medians: wall time of the process and its peak`,
  `resident memory (worker threads included).${before ? ` Before: ${before}.` : ''} Load average per round: ${loads.join(', ')}.`,
  '',
  header,
  `|---|---${before ? '|---' : ''}|`,
  line('empty cache folder (initdb, then the load)', 'empty'),
  line("another folder's copy, same cache folder", 'warm'),
  '',
].join('\n');
fs.writeFileSync(path.join(root, 'bench', 'results', 'embeddedBuild.md'), report);
process.stdout.write(report);
