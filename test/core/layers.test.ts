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

/** An import: the importing file, the imported one, and whether it is type-only (erased: none of the target's code runs). */
export type Edge = [from: string, to: string, typeOnly?: boolean];

/**
 * The modules a file names, each with whether every naming of it is type-only: `import type`, an import whose every
 * name is `type`, `export type … from`. Any other naming (a value imported, `export … from`, import(), require())
 * loads the module when the file runs.
 */
function namedModules(file: string, text: string): Map<string, boolean> {
  const named = new Map<string, boolean>();
  const note = (specifier: string, typeOnly: boolean) => named.set(specifier, (named.get(specifier) ?? true) && typeOnly);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const everyNameType = Boolean(
        clause && !clause.name && bindings && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly),
      );
      note(node.moduleSpecifier.text, Boolean(clause?.isTypeOnly) || everyNameType);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      note(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      note(node.argument.literal.text, true);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length > 0 &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      note(node.arguments[0].text, false);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const reference = node.moduleReference.expression;
      if (ts.isStringLiteral(reference)) note(reference.text, node.isTypeOnly);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return named;
}

/** Every import of a file in src/ that names another file in src/ (static, type-only, re-exports, import() and require()). */
export function importGraph(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles()) {
    for (const [fileName, typeOnly] of namedModules(file, fs.readFileSync(path.join(SRC, file), 'utf8'))) {
      if (!fileName.startsWith('.')) continue;
      const base = path.join(SRC, path.dirname(file), fileName);
      const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), base].find(
        (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
      );
      const relative = target && path.relative(SRC, target).split(path.sep).join('/');
      if (relative && !relative.startsWith('..')) edges.push([file, relative, typeOnly]); // package.json (the version) is no layer
    }
  }
  return edges;
}

/**
 * What a face may load of core when it runs (docs/architecture.md, "Faces"): `core/text/`, the wording every layer
 * shares (terminal codes, compact numbers, the input-wording table). Anything else of core a face names as a type
 * (`import type`); its work it reaches through the application layer.
 */
export const CORE_FOR_FACES = ['core/text/'];

/** The imports that break the layers, worded for the failure message. */
export function layerViolations(edges: readonly Edge[], layers: Layers): string[] {
  const problems: string[] = [];
  for (const [from, to, typeOnly] of edges) {
    const a = layerOf(from, layers);
    const b = layerOf(to, layers);
    if (!a || !b) continue; // an unplaced file is its own failure below
    if (b.layer > a.layer) problems.push(`${from} (layer ${a.layer}) imports ${to} (layer ${b.layer}, above it)`);
    else if (a.layer === layers.faces && a.folder.split('/')[0] !== b.folder.split('/')[0] && b.layer === a.layer)
      problems.push(`${from} imports another face: ${to}`);
    else if (a.layer === layers.faces && to.startsWith('core/') && !typeOnly && !CORE_FOR_FACES.some((folder) => to.startsWith(folder)))
      problems.push(`${from} (a face) loads ${to}: import its types with \`import type\`, its work through app/`);
  }
  return problems;
}

/** Files that import one another, directly or around a longer circle (Tarjan's strongly connected components). */
export function importCircles(edges: readonly Edge[]): string[][] {
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
 * Face files that still load core beyond its wording (2026-12-07), each group for its owner to move behind app/:
 * listed so that a new file loading core fails the test, and so does a listed one once it loads none (take it off
 * the list then). `node --import tsx --test test/core/layers.test.ts` prints how many files and core files remain.
 * Empty since eval's and judge's faces went behind app/: no face loads core now, and a new one that does fails.
 */
const KNOWN_FACE_LOADS: { files: string[]; why: string }[] = [];

/** The face file a face-load problem names, if it is one. */
const faceLoadOf = (problem: string) => / \(a face\) loads /.test(problem) && problem.split(' ')[0];

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
    assert.deepEqual(
      layerViolations(edges, layers).filter((problem) => !faceLoadOf(problem)),
      [],
    );
  });

  it('has the faces load of core only its wording, its types imported as types (but the files listed, each with its reason)', (t) => {
    const loads = layerViolations(edges, layers).filter(faceLoadOf);
    const known = new Set(KNOWN_FACE_LOADS.flatMap((group) => group.files));
    assert.deepEqual(
      loads.filter((problem) => !known.has(faceLoadOf(problem) as string)),
      [],
    );
    const loading = new Set(loads.map(faceLoadOf));
    assert.deepEqual(
      [...known].filter((file) => !loading.has(file)),
      [],
      'listed face files that load no core any more: take them off KNOWN_FACE_LOADS',
    );
    const faceFiles = sourceFiles().filter((file) => layerOf(file, layers)?.layer === layers.faces);
    const coreLoaded = new Set(loads.map((problem) => problem.split(' ')[4]));
    t.diagnostic(
      `face files loading core beyond core/text/: ${loading.size} of ${faceFiles.length}; core files they load: ${coreLoaded.size}`,
    );
  });

  it('has no import circles (type imports count: a circle of types is still two files that need each other)', () => {
    assert.deepEqual(importCircles(edges), []);
  });

  it('catches a planted back-import and a planted circle', () => {
    const planted: Edge[] = [...edges, ['core/db/engine.ts', 'app/evalRun.ts'], ['core/eval/types.ts', 'core/eval/evaluate.ts']];
    assert.deepEqual(
      layerViolations(planted, layers).filter((problem) => !faceLoadOf(problem)),
      [
        `core/db/engine.ts (layer ${layers.byFolder.get('core/db/')}) imports app/evalRun.ts (layer ${layers.byFolder.get('app/')}, above it)`,
      ],
    );
    assert.ok(importCircles(planted).some((circle) => circle.includes('core/eval/types.ts') && circle.includes('core/eval/evaluate.ts')));
    assert.deepEqual(layerViolations([['cli/main.ts', 'server/service.ts']], layers), [
      'cli/main.ts imports another face: server/service.ts',
    ]);
  });

  it('catches a face that loads core: a planted import of the work of core from a face file not listed fails, its type import does not', () => {
    const known = new Set(KNOWN_FACE_LOADS.flatMap((group) => group.files));
    const clean = ['server/audit/goldAuditRun.ts', 'cli/auditOptimizeOption.ts'];
    for (const file of clean) assert.ok(!known.has(file) && fs.existsSync(path.join(SRC, file)), `${file} is a face file not listed`);
    const planted: Edge[] = [...edges, ['server/audit/goldAuditRun.ts', 'core/audit/goldAudit.ts', false]];
    assert.deepEqual(
      layerViolations(planted, layers).filter((problem) => faceLoadOf(problem) && !known.has(faceLoadOf(problem) as string)),
      ['server/audit/goldAuditRun.ts (a face) loads core/audit/goldAudit.ts: import its types with `import type`, its work through app/'],
    );
    // The same import as a type, and a load of core's wording, are allowed.
    assert.deepEqual(
      layerViolations(
        [
          ['cli/auditOptimizeOption.ts', 'core/audit/goldAudit.ts', true],
          ['cli/auditOptimizeOption.ts', 'core/text/terminalText.ts', false],
          ['cli/auditOptimizeOption.ts', 'app/auditRun.ts', false],
        ],
        layers,
      ),
      [],
    );
    // A type-only import is read as one: the graph marks the imports of `import type` and of every name `type` so.
    const typeOnly = edges.filter(([from, to, isType]) => from === 'cli/auditResume.ts' && to.startsWith('core/') && isType);
    assert.ok(typeOnly.length > 0, 'cli/auditResume.ts imports core types with `import type`');
  });
});
