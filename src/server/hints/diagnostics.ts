import * as path from 'path';
import { pathToFileURL } from 'url';
import { CodeAction, CodeActionKind, Diagnostic, DiagnosticSeverity } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Hint } from '../../core/hints/types';
import type { SqlUnit } from '../../core/sql/documentUnits';
import { command, Commands, QUESTION_SCHEME, VerifyHintParams } from '../../shared/protocol';
import { RuleSeverity, VesLensSettings } from '../../shared/settings';
import { editorText } from '../editorText';

/** What a hint diagnostic carries, for its quick fixes. */
export type HintData = VerifyHintParams;

const SEVERITY: Record<Exclude<RuleSeverity, 'off'>, DiagnosticSeverity> = {
  hint: DiagnosticSeverity.Hint,
  information: DiagnosticSeverity.Information,
  warning: DiagnosticSeverity.Warning,
  error: DiagnosticSeverity.Error,
};

const READ_ONLY_FIX =
  'Quick fix: "Verify" runs the rewrite on the database; this gold is read-only, so the rewrite is copied or opened in a new editor.';

/** A question's own document (its gold, served read-only): nothing can be applied to it. */
export function isQuestionDocument(uri: string): boolean {
  return uri.startsWith(`${QUESTION_SCHEME}:`);
}

/** A rule's severity: the setting's, else its own (a correctness hazard warns, a speed hint informs, a note hints); undefined when off. */
export function ruleSeverity(hint: Pick<Hint, 'rule' | 'kind' | 'note'>, settings: VesLensSettings): DiagnosticSeverity | undefined {
  const setting = settings.rules[hint.rule.toUpperCase()];
  if (setting === 'off') return undefined;
  if (setting) return SEVERITY[setting];
  // A note (a rule rarely measured faster, core/hints/types.ts) is the quietest level: no entry in the Problems view.
  return hint.kind === 'correctness' ? DiagnosticSeverity.Warning : hint.note ? DiagnosticSeverity.Hint : DiagnosticSeverity.Information;
}

/** The rule's one-page doc shipped with the extension (docs/rules/VL00N.md), as a link on the diagnostic's code. */
export function ruleDocUri(rule: string, docsRoot: string): string {
  return pathToFileURL(path.join(docsRoot, `${rule}.md`)).toString();
}

export function hintDiagnostics(
  document: TextDocument,
  units: readonly { unit: SqlUnit; hints: Hint[] }[],
  settings: VesLensSettings,
  docsRoot: string,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const readOnly = isQuestionDocument(document.uri);
  for (const { unit, hints } of units) {
    for (const hint of hints) {
      const severity = ruleSeverity(hint, settings);
      if (severity === undefined) continue;
      const data: HintData = { uri: document.uri, statementStart: unit.start, rule: hint.rule, hintStart: hint.range.start };
      const lines = [`${hint.title}: ${editorText(hint.message)}`];
      if (hint.caveat) lines.push(`Caveat: ${editorText(hint.caveat)}`);
      if (hint.rewrite) lines.push(readOnly ? READ_ONLY_FIX : 'Quick fix: "Verify and apply" runs the rewrite on the database first.');
      diagnostics.push({
        range: { start: document.positionAt(hint.range.start), end: document.positionAt(hint.range.end) },
        severity,
        code: hint.rule,
        codeDescription: { href: ruleDocUri(hint.rule, docsRoot) },
        source: 'VES Lens',
        message: lines.join('\n'),
        data,
      });
    }
  }
  return diagnostics;
}

/** Quick fixes for the VES Lens diagnostics of a range: verify and apply, every one of the rule, ignore. */
export function hintCodeActions(
  document: TextDocument,
  diagnostics: readonly Diagnostic[],
  allOfDocument: readonly Diagnostic[],
): CodeAction[] {
  const actions: CodeAction[] = [];
  const offered = new Set<string>();
  // Nothing edits a read-only gold: no "apply every", no ignore comment.
  const editable = !isQuestionDocument(document.uri);
  for (const diagnostic of diagnostics) {
    const data = diagnostic.data as HintData | undefined;
    if (!data || diagnostic.source !== 'VES Lens') continue;
    // A question's gold is shown read-only: the rewrite is verified, then copied or opened in a new editor.
    const title = isQuestionDocument(document.uri)
      ? `Verify the ${data.rule} rewrite (read-only gold: copy or open it)`
      : `Verify and apply the ${data.rule} rewrite`;
    actions.push({
      title,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      command: command(title, Commands.applyVerifiedRewrite, data),
    });
    const sameRule = allOfDocument.filter((d) => d.code === data.rule && d.source === 'VES Lens');
    if (editable && sameRule.length > 1 && !offered.has(data.rule)) {
      offered.add(data.rule);
      const all = `Verify and apply every ${data.rule} rewrite in this file (${sameRule.length})`;
      actions.push({
        title: all,
        kind: CodeActionKind.QuickFix,
        diagnostics: sameRule,
        command: command(all, Commands.applyAllRewrites, document.uri, data.rule),
      });
    }
    if (editable && document.languageId === 'sql') {
      const at = document.positionAt(data.statementStart);
      actions.push({
        title: `Ignore ${data.rule} for this statement`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        edit: {
          changes: {
            [document.uri]: [
              {
                range: { start: { line: at.line, character: 0 }, end: { line: at.line, character: 0 } },
                newText: `-- ves-lens-ignore ${data.rule}\n`,
              },
            ],
          },
        },
      });
    }
  }
  return actions;
}
