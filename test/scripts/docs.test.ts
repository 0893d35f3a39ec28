// The documentation a newcomer reads: the README stays a short front page whose set-up commands are the ones
// CI runs, every page of docs/ is reachable from it, every relative link and anchor resolves, the generated
// references (CLI, settings) are what scripts/gen-reference.mjs would write now, and the LSP page lists exactly
// the methods src/shared/protocol declares.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as protocol from '../../src/shared/protocol';
import { REPO_ROOT, tempDir } from '../helpers';

const read = (file: string) => fs.readFileSync(file, 'utf8');

/** Every Markdown file under a folder, as absolute paths. */
function markdownUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join(dir, file))
    .sort();
}

/** The text outside fenced code blocks and inline code spans (links and headings there are not links or headings). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/(`+)[\s\S]*?\1/g, '');
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, ... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const words = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = words
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count ? `${base}-${count}` : base);
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(match[1]);
  return found;
}

interface Link {
  from: string;
  line: number;
  target: string;
}

/** The relative links (and images) of a Markdown file; web and mail links are left out. */
function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  prose(read(file)).forEach((line, i) => {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (!/^[a-z][\w+.-]*:/i.test(match[1])) links.push({ from: file, line: i + 1, target: match[1] });
    }
  });
  return links;
}

/** What is wrong with each link: a file that does not exist, or an anchor the Markdown file it names lacks. */
function brokenLinks(files: string[]): string[] {
  const problems: string[] = [];
  for (const link of files.flatMap(relativeLinks)) {
    const [pathPart, anchor] = link.target.split('#', 2);
    const target = pathPart ? path.resolve(path.dirname(link.from), decodeURIComponent(pathPart)) : link.from;
    const where = `${path.relative(REPO_ROOT, link.from)}:${link.line}: ${link.target}`;
    if (!fs.existsSync(target)) problems.push(`${where}: no such file`);
    else if (anchor !== undefined && target.endsWith('.md') && !anchors(read(target)).has(anchor))
      problems.push(`${where}: no heading #${anchor} in ${path.relative(REPO_ROOT, target)}`);
  }
  return problems;
}

/** Every Markdown file reached from `start` by following relative links (each file once). */
function reachable(start: string): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length) {
    for (const link of relativeLinks(queue.shift()!)) {
      const pathPart = link.target.split('#')[0];
      if (!pathPart.endsWith('.md')) continue;
      const target = path.resolve(path.dirname(link.from), decodeURIComponent(pathPart));
      if (!seen.has(target) && fs.existsSync(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return seen;
}

const README = path.join(REPO_ROOT, 'README.md');
const DOCS = path.join(REPO_ROOT, 'docs');
const PAGES = [README, path.join(REPO_ROOT, 'CHANGELOG.md'), ...markdownUnder(DOCS)];

describe('the README', () => {
  it('is a front page of at most 200 lines', () => {
    const lines = read(README).split('\n').length;
    assert.ok(lines <= 200, `README.md has ${lines} lines`);
  });

  it("starts with the two set-up commands (CI's `.ci/run` runs the second)", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(read(README));
    assert.ok(firstBlock, 'README.md has a sh block');
    const commands = firstBlock[1].split('\n').map((line) => line.replace(/\s+#.*$/, '').trim());
    assert.deepEqual(commands.slice(0, 2), ['npm ci && npm run sample', 'npm ci && npm test']);
    const ci = read(path.join(REPO_ROOT, '.ci', 'run'));
    assert.match(ci, /^npm ci\b/m);
    assert.match(ci, /^npm test$/m);
  });
});

describe('links and pages', () => {
  it('every relative link of the README, the CHANGELOG and docs/ names a file that exists, and an anchor it has', () => {
    assert.deepEqual(brokenLinks(PAGES), []);
  });

  it('every page of docs/ is reachable from the README', () => {
    const reached = reachable(README);
    const unreached = markdownUnder(DOCS).filter((page) => !reached.has(page));
    assert.deepEqual(
      unreached.map((page) => path.relative(REPO_ROOT, page)),
      [],
    );
  });

  it('the link check finds a missing file, a missing anchor and an unlinked page', () => {
    const dir = tempDir('ves-lens-docs-');
    fs.writeFileSync(
      path.join(dir, 'a.md'),
      '# A page\n\n## Its part\n\n[ok](b.md#the-b-page) [gone](c.md) [typo](b.md#nope) [self](#its-part)\n',
    );
    fs.writeFileSync(path.join(dir, 'b.md'), '# The B page\n\n```\n[in code](missing.md)\n```\n');
    fs.writeFileSync(path.join(dir, 'lonely.md'), '# Nobody links here\n');
    const problems = brokenLinks([path.join(dir, 'a.md'), path.join(dir, 'b.md')]);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0], /a\.md:5: c\.md: no such file$/);
    assert.match(problems[1], /a\.md:5: b\.md#nope: no heading #nope in /);
    assert.ok(!reachable(path.join(dir, 'a.md')).has(path.join(dir, 'lonely.md')));
  });

  it("anchors follow GitHub's rule", () => {
    const found = anchors('# Interrupted runs and --resume\n## Is the gold right? `--correctness`\n## Usage\n## Usage\n');
    assert.deepEqual([...found], ['interrupted-runs-and---resume', 'is-the-gold-right---correctness', 'usage', 'usage-1']);
  });
});

describe('generated and checked references', () => {
  it('docs/reference/cli.md and settings.md are what `npm run docs:reference` writes now', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'scripts', 'gen-reference.mjs'), '--check'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, `${result.stderr}${result.stdout}`);
  });

  it('the CLI reference has a section for every command and a row for every option', () => {
    const cli = read(path.join(DOCS, 'reference', 'cli.md'));
    for (const [command, option] of [
      ['eval', '--predictions <file>'],
      ['eval', '--no-gold-cache'],
      ['audit', '--compare-gold <file>'],
      ['judge', '--endpoint <url>'],
      ['load', '--layout <layout>'],
    ]) {
      const section = cli.slice(cli.indexOf(`## ves-lens ${command}\n`));
      assert.ok(cli.includes(`## ves-lens ${command}\n`), `a section for ${command}`);
      assert.ok(section.split('\n## ')[0].includes(`| \`${option}\` |`), `${command}: a row for ${option}`);
    }
  });

  it('the settings reference has every setting of package.json', () => {
    const manifest = JSON.parse(read(path.join(REPO_ROOT, 'package.json'))) as { contributes: { configuration: { properties: object } } };
    const settings = read(path.join(DOCS, 'reference', 'settings.md'));
    for (const id of Object.keys(manifest.contributes.configuration.properties)) assert.ok(settings.includes(`\n## ${id}\n`), id);
  });

  it('the LSP page lists exactly the custom methods src/shared/protocol declares', () => {
    const declared = Object.values(protocol)
      .map((value) => (value as { method?: unknown })?.method)
      .filter((method): method is string => typeof method === 'string' && method.startsWith('vesLens/'))
      .sort();
    assert.ok(declared.length >= 20, declared.join(', '));
    const page = read(path.join(DOCS, 'reference', 'lsp.md'));
    const listed = [...new Set([...page.matchAll(/^\| `(vesLens\/\w+)` \|/gm)].map((m) => m[1]))].sort();
    assert.deepEqual(listed, declared);
  });
});
