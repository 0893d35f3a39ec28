/**
 * The hints slice, and everything else the server says about an open document: each SQL unit's hints as
 * diagnostics with quick fixes, the code lenses (Score, Judge, Explain, Hints), the hover over a table or column,
 * and a hint's rewrite verified on the database before it is applied.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeAction, CodeLens, Diagnostic, Hover, Position } from 'vscode-languageserver-types';
import { documentStatements, isSqlDocument, showsHints, statementAt } from '../../app/documentStatements';
import { statementHints, verifyRewrite } from '../../app/statementHints';
import { hoverText } from '../../app/statementHover';
import type { Hint } from '../../core/hints/types';
import type { SqlUnit } from '../../core/sql/documentUnits';
import { command, Commands, RuleHintsParams, VerifyHintParams, VerifyHintResult } from '../../shared/protocol';
import { ServerContext } from '../context';
import { editorText } from '../editorText';
import { CancelledError } from '../errors';
import { QueryTargets } from '../queryTargets';
import { HintData, hintCodeActions, hintDiagnostics, isQuestionDocument } from './diagnostics';
import { StatementProblems } from './statementProblems';

interface AnalysedUnit {
  unit: SqlUnit;
  hints: Hint[];
}

/** A document version's units and hints: one analysis shared by whoever asks while it runs, kept once done. */
interface Analysis {
  version: number;
  /** The document's SQL units, parsed once when the analysis starts (lenses need no more). */
  statements: SqlUnit[];
  units: Promise<AnalysedUnit[]>;
  done: boolean;
}

/**
 * Statements given lenses before the hints are counted (the first answer on a file VS Code draws at once). VS Code
 * lays out one row per statement with lenses, ~0.3–0.6 s for a 500-entry file it has never seen: the first answer
 * covers what an opened file shows (and a scroll or two), the refresh with the counts brings the rest.
 */
export const EARLY_LENS_STATEMENTS = 100;

/** How long the analysis works before it lets other requests in (a lens request must not wait for 500 statements). */
const ANALYSIS_SLICE_MS = 8;
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

export class HintsProvider {
  /** Units and their hints, computed once per document version (diagnostics, lenses and quick fixes share them). */
  private readonly analysed = new Map<string, Analysis>();
  /** Documents whose lenses were given with their hint counts: from then on they always are. */
  private readonly countedLenses = new Set<string>();
  private readonly problems: StatementProblems;

  constructor(
    private readonly context: ServerContext,
    private readonly targets: QueryTargets,
  ) {
    this.problems = new StatementProblems(targets);
  }

  /** Hints of one unit, in document offsets, with its database's schema when it opens. */
  private async unitHints(unit: SqlUnit): Promise<Hint[]> {
    return statementHints(unit, (await this.targets.unitDatabase(unit))?.schema);
  }

  /** The document's analysis, started if this version has none (opening its databases, reading their schemas). */
  private analysis(document: TextDocument): Analysis {
    const cached = this.analysed.get(document.uri);
    if (cached?.version === document.version) return cached;
    const statements = documentStatements(document);
    const analysis: Analysis = { version: document.version, statements, units: this.analyseUnits(statements), done: false };
    analysis.units.then(
      () => (analysis.done = true),
      () => this.analysed.get(document.uri) === analysis && this.analysed.delete(document.uri),
    );
    this.analysed.set(document.uri, analysis);
    return analysis;
  }

  private analyse(document: TextDocument): Promise<AnalysedUnit[]> {
    return this.analysis(document).units;
  }

  private async analyseUnits(statements: SqlUnit[]): Promise<AnalysedUnit[]> {
    const units: AnalysedUnit[] = [];
    // Its awaits settle at once once the databases are open: without a real pause every ANALYSIS_SLICE_MS, a lens
    // or hover request arriving meanwhile would wait for the whole document.
    let sliceStart = performance.now();
    for (const unit of statements) {
      units.push({ unit, hints: await this.unitHints(unit) });
      if (performance.now() - sliceStart > ANALYSIS_SLICE_MS) {
        await yieldToRequests();
        sliceStart = performance.now();
      }
    }
    return units;
  }

  forget(uri: string): void {
    this.analysed.delete(uri);
    this.countedLenses.delete(uri);
  }

  /** Hints depend on the dataset, trust and the rule settings: any of them changed, every document is analysed anew. */
  forgetAll(): void {
    this.analysed.clear();
    this.countedLenses.clear();
    this.problems.forgetAll();
  }

  /** Whether a document's hints are shown: a question file's (every gold SQL of it) only when the setting asks. */
  private wantsDiagnostics(document: TextDocument): boolean {
    return showsHints(document, this.context.settings.diagnosticsInQuestionFiles);
  }

  async diagnostics(document: TextDocument): Promise<Diagnostic[]> {
    if (!this.wantsDiagnostics(document)) return [];
    const analysed = await this.analyse(document);
    const hints = hintDiagnostics(document, analysed, this.context.settings, this.context.host.docsRoot);
    if (!isSqlDocument(document)) return hints;
    // A statement that cannot run (a syntax error, an unknown question, a missing database) says so first.
    const problems = await this.problems.diagnostics(
      document,
      analysed.map(({ unit }) => unit),
    );
    return [...problems, ...hints];
  }

  async codeActions(document: TextDocument, diagnostics: readonly Diagnostic[]): Promise<CodeAction[]> {
    return hintCodeActions(document, diagnostics, await this.diagnostics(document));
  }

  /**
   * The lenses of a document. Score, Judge and Explain need only the document and the question file; the hint
   * counts need the analysis (databases opened, schemas read, every statement parsed). A client that can refresh
   * its lenses passes `whenHintsReady`: its first answer on a document covers the first statements (at once, without
   * counts, on a document not analysed yet) and it is told when the counts and the other statements' lenses are there. An edited document waits for its
   * counts, so that its Hints lenses never blink.
   */
  async codeLenses(document: TextDocument, whenHintsReady?: () => void): Promise<CodeLens[]> {
    const settings = this.context.settings;
    if (!settings.codeLensEnabled) return [];
    const analysis = this.analysis(document);
    const withoutHints = () => analysis.statements.map((unit) => ({ unit, hints: undefined }));
    if (this.countedLenses.has(document.uri) || !whenHintsReady || (analysis.done && analysis.statements.length <= EARLY_LENS_STATEMENTS)) {
      // An analysis that failed still leaves every statement its Score, Judge and Explain lenses.
      const units = await analysis.units.catch(withoutHints);
      this.countedLenses.add(document.uri);
      return this.lenses(document, units);
    }
    if (analysis.done) {
      // Analysed already (opened before, or its analysis finished before VS Code asked): the first answer still
      // covers only the first statements, with their counts, and the refresh right after brings the rest. VS Code
      // lays out every lens row it is given before it draws any (2,051 lenses of a 500-entry file: ~0.35 s more).
      const units = await analysis.units;
      this.countedLenses.add(document.uri);
      setTimeout(whenHintsReady, 0);
      return this.lenses(document, units.slice(0, EARLY_LENS_STATEMENTS));
    }
    // The refresh brings the other statements' lenses, with their counts or, if the analysis failed, without.
    const refresh = () => {
      this.countedLenses.add(document.uri);
      whenHintsReady();
    };
    analysis.units.then(refresh, refresh);
    return this.lenses(document, withoutHints().slice(0, EARLY_LENS_STATEMENTS));
  }

  /** Lenses of analysed units; a unit whose hints are not known yet (undefined) gets no Hints lens. */
  private lenses(document: TextDocument, units: { unit: SqlUnit; hints: Hint[] | undefined }[]): CodeLens[] {
    const settings = this.context.settings;
    const state = this.context.state;
    const lenses: CodeLens[] = [];
    const hintsShown = this.wantsDiagnostics(document);
    // A question's own document holds its gold: time it alone rather than score it against itself.
    const questionDocument = isQuestionDocument(document.uri);
    for (const { unit, hints } of units) {
      const position = document.positionAt(unit.start);
      const range = { start: position, end: position };
      const question = state.question(unit.questionId, unit.questionIndex);
      if (question && questionDocument) {
        lenses.push({ range, command: command('$(watch) Time the gold alone', Commands.timeGold, state.info(question)) });
      } else if (question && unit.role !== 'gold') {
        const { questionId, index } = question;
        const scoreTitle = `$(beaker) Score against gold (question ${questionId})`;
        lenses.push({ range, command: command(scoreTitle, Commands.scoreAgainstGold, document.uri, unit.start, questionId, index) });
        lenses.push({ range, command: command('$(law) Judge', Commands.judge, document.uri, unit.start, questionId, index) });
      }
      const dbId = this.targets.unitDbId(unit);
      lenses.push({ range, command: command('$(list-tree) Explain', Commands.explain, document.uri, unit.start, dbId) });
      lenses.push({
        range,
        command: command('$(zap) Find a faster equivalent', Commands.findFasterEquivalent, document.uri, unit.start, dbId),
      });
      const shown = hintsShown && hints ? hints.filter((hint) => settings.rules[hint.rule] !== 'off') : [];
      if (shown.length > 0) {
        lenses.push({ range, command: command(`$(lightbulb) Hints (${shown.length})`, Commands.showHints, document.uri, position.line) });
      }
    }
    return lenses;
  }

  async hover(document: TextDocument, position: Position): Promise<Hover | null> {
    const offset = document.offsetAt(position);
    const unit = statementAt(document, offset);
    const database = unit && (await this.targets.unitDatabase(unit));
    if (!unit || !database) return null;
    const text = hoverText(document.getText(), offset, database.schema);
    return text ? { contents: { kind: 'markdown', value: text } } : null;
  }

  /** A hint's rewrite run against the original on the database: applied only when the rows agree (or a hazard is confirmed). */
  async verifyHint(params: VerifyHintParams, signal?: AbortSignal): Promise<VerifyHintResult> {
    this.context.requireTrust();
    const document = this.context.documents.get(params.uri);
    const entry = document && (await this.analyse(document)).find(({ unit }) => unit.start === params.statementStart);
    const hint = entry?.hints.find((h) => h.rule === params.rule && h.range.start === params.hintStart);
    if (!document || !entry || !hint?.rewrite) {
      return { status: 'failed', message: 'the statement changed since the hint was shown; try again', recommended: false };
    }
    const database = await this.targets.unitDatabase(entry.unit);
    if (!database) {
      const problem = (await this.targets.bindingProblems(entry.unit))[0]?.message;
      return {
        status: 'failed',
        message: problem ?? this.targets.noDatabaseMessage(this.targets.unitDbId(entry.unit)),
        recommended: false,
      };
    }
    if (signal?.aborted) throw new CancelledError();
    const verified = await verifyRewrite(
      database,
      { languageId: document.languageId, text: document.getText() },
      entry.unit,
      hint,
      this.context.limits,
    );
    return { ...verified, message: editorText(verified.message) };
  }

  /** Every hint of a rule in a document that has a rewrite, last first (applying one never moves the ones before it). */
  async ruleHints(params: RuleHintsParams): Promise<VerifyHintParams[]> {
    const document = this.context.documents.get(params.uri);
    if (!document) return [];
    const found: HintData[] = [];
    for (const { unit, hints } of await this.analyse(document)) {
      for (const hint of hints) {
        if (hint.rule === params.rule && hint.rewrite) {
          found.push({ uri: params.uri, statementStart: unit.start, rule: hint.rule, hintStart: hint.range.start });
        }
      }
    }
    return found.sort((a, b) => b.hintStart - a.hintStart);
  }
}
