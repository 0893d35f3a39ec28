// The layers of docs/architecture.md, held by the code: every import in src/ points down the list written there (or
// stays in its layer), the faces import no other face, and no files import one another in a circle.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as ts from 'typescript';
import { REPO_ROOT } from '../helpers';

const SRC = path.join(REPO_ROOT, 'src');

interface Layers {
  /** Folder under src/ (with a trailing slash) → its layer's number. */
  byFolder: Map<string, number>;
  /** The faces' layer: its folders import no other of its folders. */
  faces: number;
}

/** The numbered list under "The layers, bottom to top": each item's folders are the backticked ones that exist in src/. */
export function layersOf(markdown: string): Layers {
  const section = markdown.split('## The layers, bottom to top')[1]?.split('\n## ')[0] ?? '';
  const byFolder = new Map<string, number>();
  let faces = -1;
  for (const item of section.split(/\n(?=\d+\. \*\*)/)) {
    const number = /^(\d+)\. \*\*/.exec(item)?.[1];
    if (number === undefined) continue;
    for (const [, folder] of item.matchAll(/`((?:[a-z]+\/)+)`/g)) {
      if (!fs.existsSync(path.join(SRC, folder))) continue;
      const earlier = byFolder.get(folder);
      assert.ok(earlier === undefined || earlier === Number(number), `${folder} is named in layers ${earlier} and ${number}`);
      byFolder.set(folder, Number(number));
    }
    if (/^\d+\. \*\*Faces\*\*/.test(item)) faces = Number(number);
  }
  return { byFolder, faces };
}

/** The layer of a file under src/: its deepest folder named in the list. */
function layerOf(file: string, layers: Layers): { layer: number; folder: string } | undefined {
  let best: { layer: number; folder: string } | undefined;
  for (const [folder, layer] of layers.byFolder) {
    if (file.startsWith(folder) && (!best || folder.length > best.folder.length)) best = { layer, folder };
  }
  return best;
}

function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** Every import of a file in src/ that names another file in src/ (static, type-only, re-exports, import() and require()). */
export function importGraph(): [string, string][] {
  const edges: [string, string][] = [];
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(SRC, file), 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = path.join(SRC, path.dirname(file), fileName);
      const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base].find(
        (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
      );
      const relative = target && path.relative(SRC, target).split(path.sep).join('/');
      if (relative && !relative.startsWith('..')) edges.push([file, relative]); // package.json (the version) is no layer
    }
  }
  return edges;
}

/** The imports that break the layers, worded for the failure message. */
export function layerViolations(edges: readonly [string, string][], layers: Layers): string[] {
  const problems: string[] = [];
  for (const [from, to] of edges) {
    const a = layerOf(from, layers);
    const b = layerOf(to, layers);
    if (!a || !b) continue; // an unplaced file is its own failure below
    if (b.layer > a.layer) problems.push(`${from} (layer ${a.layer}) imports ${to} (layer ${b.layer}, above it)`);
    else if (a.layer === layers.faces && a.folder.split('/')[0] !== b.folder.split('/')[0] && b.layer === a.layer)
      problems.push(`${from} imports another face: ${to}`);
  }
  return problems;
}

/** Files that import one another, directly or around a longer circle (Tarjan's strongly connected components). */
export function importCircles(edges: readonly [string, string][]): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/**
 * Circles that came with work landed beside this test (2026-12-07), each for its owner to break; listed so that a
 * new circle fails the test, and so does a listed one once it is gone (take it off the list then).
 */
const KNOWN_CIRCLES = [
  {
    files: [
      'core/db/engines.ts',
      'core/db/mysql/loadFromSqlite.ts',
      'core/db/mysql/localServer.ts',
      'core/db/mysql/mysqlConnection.ts',
      'core/db/mysql/mysqlEngine.ts',
      'core/db/mysql/mysqlSchema.ts',
      'core/db/postgres/loadFromSqlite.ts',
    ],
    why: "MySQL's local server loads its copy with a loader that opens the SQLite files through engines.ts, which knows MySQL's engine (issue 32)",
  },
  {
    files: ['core/audit/auditOptimize.ts', 'core/audit/goldAudit.ts'],
    why: "the audit's optimize step reads the audit's types, and the audit calls it (issue 28)",
  },
];

describe('the layers of docs/architecture.md', () => {
  const layers = layersOf(fs.readFileSync(path.join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8'));
  const edges = importGraph();

  it('names the layers bottom to top, with the application layer between core and the faces', () => {
    const layer = (folder: string) => layers.byFolder.get(folder);
    for (const folder of ['core/io/', 'core/bird/', 'core/sql/', 'core/db/', 'core/eval/', 'app/', 'cli/', 'server/'])
      assert.notEqual(layer(folder), undefined, `${folder} is in no layer`);
    assert.ok(layer('core/bird/')! < layer('core/sql/')! && layer('core/sql/')! < layer('core/db/')!);
    assert.ok(layer('core/eval/')! < layer('app/')! && layer('app/')! < layer('cli/')!);
    assert.equal(layer('cli/'), layers.faces);
    assert.equal(layer('server/'), layers.faces);
  });

  it('places every file in src/ in a layer', () => {
    const unplaced = sourceFiles().filter((file) => !layerOf(file, layers));
    assert.deepEqual(unplaced, [], 'files in no folder the layer list names');
  });

  it('has every import point down the list (or within its layer), and no face import another', () => {
    assert.ok(edges.length > 1000, `the import graph was read (${edges.length} imports)`);
    assert.deepEqual(layerViolations(edges, layers), []);
  });

  it('has no import circles but the two listed, each with its reason', () => {
    assert.deepEqual(importCircles(edges).sort(), KNOWN_CIRCLES.map((known) => known.files).sort());
  });

  it('catches a planted back-import and a planted circle', () => {
    const planted: [string, string][] = [
      ...edges,
      ['core/db/engine.ts', 'app/evalRun.ts'],
      ['core/eval/types.ts', 'core/eval/evaluate.ts'],
    ];
    assert.deepEqual(layerViolations(planted, layers), [
      `core/db/engine.ts (layer ${layers.byFolder.get('core/db/')}) imports app/evalRun.ts (layer ${layers.byFolder.get('app/')}, above it)`,
    ]);
    assert.ok(importCircles(planted).some((circle) => circle.includes('core/eval/types.ts') && circle.includes('core/eval/evaluate.ts')));
    assert.deepEqual(layerViolations([['cli/main.ts', 'server/service.ts']], layers), [
      'cli/main.ts imports another face: server/service.ts',
    ]);
  });
});
