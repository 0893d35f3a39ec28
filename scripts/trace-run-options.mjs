#!/usr/bin/env node
// Follows a run's options through the calls (issue 29's measure of how far one run's settings travel):
//   node scripts/trace-run-options.mjs [--values] [--root DIR] [file function]
// (default: src/cli/evalCommand.ts runEval; `src/core/eval/evaluate.ts evaluateTasks` starts at scoring; --root
// measures another checkout, e.g. `git worktree add /tmp/old <commit>`, with this script and this layer list).
//
// The run options are the objects of RUN_OPTION_TYPES (what a face parsed its options into, and the objects that
// carry it). Every call (or `new`) in a function's body that hands them over (an argument of such a type, or an
// object literal typed as one or spreading one) is a step into the callee, resolved by TypeScript's checker, whose
// body is followed the same way (each function once). With --values, whatever is read from them is followed too
// (`options.signal`, a destructured field, an object made of them), as far as it goes: a call's result is the
// callee's own. The walk is the sequence of files entered and returned to; a step is a change of file; a step back
// up is one into a higher layer of docs/architecture.md's list (returning to a caller, or a call upward). Returns
// after the last call are not steps: the options have gone as far as they go.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const args = process.argv.slice(2);
// --values follows whatever is read from the options too (options.signal, a field destructured), not only the object.
const values = args.includes('--values') && Boolean(args.splice(args.indexOf('--values'), 1));
const rootAt = args.indexOf('--root');
// --root DIR measures another checkout (an older commit: `git worktree add /tmp/old <commit>`) with this script.
const ROOT = rootAt >= 0 ? path.resolve(args.splice(rootAt, 2)[1]) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
/** The run's options once parsed (the command line's own strings, EvalCommandOptions, are the face's to parse). */
const RUN_OPTION_TYPES = new Set(['EvalRunSettings', 'PreparedEvalRun', 'EvalOptions', 'EvalRunOptions']);
const [entryFile = 'src/cli/evalCommand.ts', entryName = 'runEval'] = args;

/** The layer of each folder, from the numbered list under "The layers, bottom to top" (as test/core/layers.test.ts reads it). */
function layerList() {
  const markdown = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = markdown.split('## The layers, bottom to top')[1]?.split('\n## ')[0] ?? '';
  const byFolder = new Map();
  for (const item of section.split(/\n(?=\d+\. \*\*)/)) {
    const number = /^(\d+)\. \*\*/.exec(item)?.[1];
    if (number === undefined) continue;
    for (const [, folder] of item.matchAll(/`((?:[a-z]+\/)+)`/g))
      if (fs.existsSync(path.join(SRC, folder))) byFolder.set(folder, Number(number));
  }
  return (file) => {
    let best = { length: -1, layer: -1 };
    for (const [folder, layer] of byFolder)
      if (file.startsWith(folder) && folder.length > best.length) best = { length: folder.length, layer };
    return best.layer;
  };
}

const config = ts.getParsedCommandLineOfConfigFile(
  path.join(ROOT, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
const program = ts.createProgram({ rootNames: config.fileNames.filter((f) => f.startsWith(SRC)), options: config.options });
const checker = program.getTypeChecker();
const relative = (sourceFile) => path.relative(SRC, sourceFile.fileName).split(path.sep).join('/');

/** Whether a type is (or intersects, or is a union with) one of the run-options types. */
function isRunOptions(type) {
  const names = [type.aliasSymbol?.escapedName, type.getSymbol()?.escapedName].filter(Boolean);
  if (names.some((name) => RUN_OPTION_TYPES.has(String(name)))) return true;
  if (type.isUnionOrIntersection()) return type.types.some(isRunOptions);
  return false;
}

/**
 * Whether an expression hands over the options or something read from them: a tainted name, a property read of
 * one (`options.signal`), an object or array made of them (`{ ...options, jobs }`, typed as run options by its
 * parameter), or a value chosen from them. A call's result is its callee's own making, and a function written in
 * place is followed where it is called: neither hands the options over by itself.
 */
function carries(node, tainted) {
  if (!values) return handsOverObject(node);
  if (ts.isIdentifier(node)) {
    const symbol = checker.getSymbolAtLocation(node);
    return Boolean(symbol && tainted.has(symbol));
  }
  if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isFunctionLike(node)) return false;
  if (ts.isObjectLiteralExpression(node)) {
    const contextual = checker.getContextualType(node);
    if (contextual && isRunOptions(contextual)) return true;
  }
  if (ts.isPropertyAccessExpression(node)) return carries(node.expression, tainted);
  if (ts.isShorthandPropertyAssignment(node)) return carries(node.name, tainted);
  if (ts.isPropertyAssignment(node)) return carries(node.initializer, tainted);
  return ts.forEachChild(node, (child) => (carries(child, tainted) ? true : undefined)) ?? false;
}

/** The run-options object itself: an argument of a run-options type, or an object literal typed as one or spreading one. */
function handsOverObject(node) {
  if (ts.isObjectLiteralExpression(node)) {
    const contextual = checker.getContextualType(node);
    if (contextual && isRunOptions(contextual)) return true;
    return node.properties.some((p) => ts.isSpreadAssignment(p) && handsOverObject(p.expression));
  }
  return isRunOptions(checker.getTypeAtLocation(node));
}

/** The names a declaration binds (`const { a, b: c } = …` binds a and c). */
function boundSymbols(name) {
  if (ts.isIdentifier(name)) return [checker.getSymbolAtLocation(name)].filter(Boolean);
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundSymbols(element.name)));
}

const walk = []; // { file, kind }: the files the options visit, in order (entered by a call, returned to)
const seen = new Set();
const calls = [];

/** Follows the options into a function whose `tainted` names hold them; each function once. */
function follow(declaration, tainted, depth) {
  if (seen.has(declaration)) return;
  seen.add(declaration);
  const file = relative(declaration.getSourceFile());
  const visit = (node) => {
    // A name given the options, or a value read from them, holds them too.
    if (ts.isVariableDeclaration(node) && node.initializer) {
      const init = ts.isAwaitExpression(node.initializer) ? node.initializer.expression : node.initializer;
      if (carries(init, tainted)) for (const symbol of boundSymbols(node.name)) tainted.add(symbol);
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const args = [...(node.arguments ?? [])];
      const handed = args.map((arg) => carries(arg, tainted));
      const callee = handed.includes(true) ? checker.getResolvedSignature(node)?.declaration : undefined;
      if (callee && callee.getSourceFile().fileName.startsWith(SRC)) {
        const target = relative(callee.getSourceFile());
        calls.push(`${'  '.repeat(depth)}${target} ${callee.name?.getText() ?? '(a function)'}`);
        walk.push({ file: target, kind: 'call' });
        const params = new Set(
          (callee.parameters ?? []).flatMap((param, i) =>
            handed[i] || (param.dotDotDotToken && handed.slice(i).includes(true)) ? boundSymbols(param.name) : [],
          ),
        );
        if (callee.body) follow(callee, params, depth + 1);
        walk.push({ file, kind: 'return' });
      }
    }
    ts.forEachChild(node, visit);
  };
  if (declaration.body) ts.forEachChild(declaration.body, visit);
}

const entrySource = program.getSourceFile(path.join(ROOT, entryFile));
const entry = entrySource?.statements.find((node) => ts.isFunctionDeclaration(node) && node.name?.text === entryName);
if (!entry) {
  console.error(`no function ${entryName} in ${entryFile}`);
  process.exit(2);
}
walk.push({ file: relative(entrySource), kind: 'call' });
console.log(`${relative(entrySource)} ${entryName}`);
// In the entry, the run options are what the face parsed them into: the names of run-options types.
const entryTaint = new Set();
const findTyped = (node) => {
  if (ts.isVariableDeclaration(node) || ts.isParameter(node))
    for (const symbol of boundSymbols(node.name)) if (isRunOptions(checker.getTypeOfSymbolAtLocation(symbol, node))) entryTaint.add(symbol);
  ts.forEachChild(node, findTyped);
};
findTyped(entry);
follow(entry, entryTaint, 1);
// The returns after the last call are no steps: nothing more is handed on.
while (walk.length > 1 && walk[walk.length - 1].kind === 'return') walk.pop();

const layerOf = layerList();
const files = walk.map((event) => event.file).filter((file, i, all) => i === 0 || file !== all[i - 1]);
const back = [];
for (let i = 1; i < files.length; i++) if (layerOf(files[i]) > layerOf(files[i - 1])) back.push(`${files[i - 1]} → ${files[i]}`);
console.log(calls.join('\n'));
const visited = [...new Set(files)];
console.log(`\nfiles visited: ${visited.length} (${visited.map((f) => `${f} [layer ${layerOf(f)}]`).join(', ')})`);
console.log(`steps: ${files.length - 1}, back up a layer: ${back.length}${back.length ? ` (${back.join('; ')})` : ''}`);
