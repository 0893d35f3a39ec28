import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { PyFloat } from '../../src/core/results/sqlmorph/pyValues';
import { scoreTechniques } from '../../src/core/results/sqlmorph/scoreTechniques';
import { columnText } from '../../src/core/results/sqlmorph/semanticColumn';
import { CellScores, ResultTable } from '../../src/core/results/sqlmorph/types';
import { EmbeddingProvider } from '../../src/core/embeddings/provider';

/**
 * An in-memory model whose "meaning" of a column text is set by the test: the text's column name picks a
 * vector. Gold names get unit axes; a predicted name gets (s_a, s_b, ..., rest) so that its cosine with gold
 * column k is exactly s_k.
 */
function columnModel(vectors: Record<string, number[]>): EmbeddingProvider & { texts: string[] } {
  const texts: string[] = [];
  return {
    id: 'fake:columns',
    texts,
    async embed(input) {
      texts.push(...input);
      return input.map((text) => {
        const name = /^Column name: (.*?)\. Data type/.exec(text)?.[1] ?? text;
        const v = vectors[name];
        assert.ok(v, `no vector for ${name}`);
        return Float32Array.from(v);
      });
    },
  };
}

/** A predicted column's vector with cosine s[k] to gold axis k (dimension = gold columns + 1). */
const toward = (...s: number[]) => [...s, Math.sqrt(Math.max(0, 1 - s.reduce((a, x) => a + x * x, 0)))];
const axis = (k: number, n: number) => Array.from({ length: n + 1 }, (_, i) => (i === k ? 1 : 0));

/** The column tests ask for the column techniques only (the fake models know column texts or row texts, not both). */
const COLUMN_TECHNIQUES = [
  'execution_accuracy',
  'exact_column_and_exact_cell',
  'semantic_column_and_exact_cell',
  'semantic_column_and_partial_cell',
] as const;
const ROW_TECHNIQUES = ['execution_accuracy', 'exact_column_and_exact_cell', 'unified_column_and_semantic_row'] as const;

const cells = (
  report: Awaited<ReturnType<typeof scoreTechniques>>,
  name: 'semantic_column_and_exact_cell' | 'semantic_column_and_partial_cell',
) => report.scores[name] as CellScores;

describe("SQLMorph's semantic column techniques with a controlled similarity matrix", () => {
  it('builds the column text as SQLMorph (pandas dtype, top values, str())', () => {
    assert.equal(columnText('School', ['A', 'B', 'A', null]), 'Column name: School. Data type: object. Sample values: A, B');
    assert.equal(columnText('n', [1, 2, 2]), 'Column name: n. Data type: int64. Sample values: 2, 1');
    assert.equal(columnText('n', [1, null, 2]), 'Column name: n. Data type: float64. Sample values: 1.0, 2.0');
    assert.equal(columnText('r', [new PyFloat(1e16), 3]), 'Column name: r. Data type: float64. Sample values: 1e+16, 3.0');
    assert.equal(columnText('x', [null, null]), 'Column name: x. Data type: object. ');
    assert.equal(columnText('x', []), 'Column name: x. Data type: object. ');
    assert.equal(columnText('b', [Buffer.from('hi'), 1]), "Column name: b. Data type: object. Sample values: b'hi', 1");
    assert.equal(
      columnText(
        'k',
        Array.from({ length: 12 }, (_, i) => i),
      ),
      'Column name: k. Data type: int64. Sample values: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9',
    );
  });

  it("uses the assignment's own pairs where SQLMorph's enumerate(col_ind) misreads them (more predicted columns)", async () => {
    // A synthetic similarity matrix S = [[.1,.2],[.9,.1],[.2,.9]]: SQLMorph matches nothing; the optimum is p1→a, p2→b.
    const gold: ResultTable = {
      columns: ['a', 'b'],
      rows: [
        [1, 2],
        [3, 4],
      ],
    };
    const predicted: ResultTable = {
      columns: ['p0', 'p1', 'p2'],
      rows: [
        [0, 1, 2],
        [0, 3, 5],
      ],
    };
    const model = columnModel({ a: axis(0, 2), b: axis(1, 2), p0: toward(0.1, 0.2), p1: toward(0.9, 0.1), p2: toward(0.2, 0.9) });
    for (const penalize of [true, false]) {
      const report = await scoreTechniques(gold, predicted, {
        techniques: COLUMN_TECHNIQUES,
        embeddings: model,
        penalizeExtraColumns: penalize,
        details: true,
      });
      const scec = cells(report, 'semantic_column_and_exact_cell');
      // One row equal on both matched columns: 2 matched cells of 4 gold cells, of 6 (or 4) predicted cells.
      assert.deepEqual(scec, { EX: 0, EXP: penalize ? 2 / 6 : 2 / 4, EXR: 2 / 4, F1: penalize ? 0.4 : 0.5 });
      // The partial technique adds the second row's one equal cell (3 = 3).
      const scpc = cells(report, 'semantic_column_and_partial_cell');
      assert.deepEqual([scpc.EXP, scpc.EXR], [penalize ? 3 / 6 : 3 / 4, 3 / 4]);
      assert.ok(
        report.notes.some((n) =>
          /enumerate\(col_ind\) reading of the assignment would match none; VES Lens matches the assigned pairs p1→a, p2→b/.test(n),
        ),
        report.notes.join('\n'),
      );
      const alignment = report.details.semantic_column_and_exact_cell!.columns!;
      assert.deepEqual(
        alignment.map((c) => [c.predicted, c.gold, c.matched]),
        [
          [1, 0, true],
          [2, 1, true],
        ],
      );
    }
  });

  it('compares crossed column pairs by pair, where SQLMorph would compare them misaligned', async () => {
    const gold: ResultTable = {
      columns: ['name', 'city'],
      rows: [
        ['Ann', 'Paris'],
        ['Bob', 'Rome'],
      ],
    };
    const predicted: ResultTable = {
      columns: ['town', 'person'],
      rows: [
        ['Paris', 'Ann'],
        ['Oslo', 'Bob'],
      ],
    };
    const model = columnModel({ name: axis(0, 2), city: axis(1, 2), town: toward(0.1, 0.95), person: toward(0.95, 0.1) });
    const report = await scoreTechniques(gold, predicted, { techniques: COLUMN_TECHNIQUES, embeddings: model });
    // (Ann, Paris) matches whole; (Bob, Rome) vs (Bob, Oslo) does not: 2 of 4 cells.
    assert.deepEqual(cells(report, 'semantic_column_and_exact_cell'), { EX: 0, EXP: 0.5, EXR: 0.5, F1: 0.5 });
    assert.deepEqual(cells(report, 'semantic_column_and_partial_cell'), { EX: 0, EXP: 0.75, EXR: 0.75, F1: 0.75 });
    assert.ok(report.notes.some((n) => n.startsWith('semantic_column_and_exact_cell: ') && /crossed column pairs/.test(n)));
    assert.ok(!report.notes.some((n) => n.startsWith('semantic_column_and_partial_cell: ') && /crossed/.test(n)));
  });

  it('treats repeated column names position by position (SQLMorph raises)', async () => {
    const gold: ResultTable = {
      columns: ['id', 'id'],
      rows: [
        [1, 2],
        [3, 4],
      ],
    };
    const predicted: ResultTable = {
      columns: ['id', 'x'],
      rows: [
        [1, 2],
        [3, 5],
      ],
    };
    const model = columnModel({ id: axis(0, 2), x: toward(0.1, 0.8) });
    const report = await scoreTechniques(gold, predicted, { techniques: COLUMN_TECHNIQUES, embeddings: model });
    assert.ok(report.notes.some((n) => /raises AttributeError/.test(n)));
    assert.equal(model.texts.length, 4, 'one text per column position');
    assert.deepEqual(cells(report, 'semantic_column_and_exact_cell'), { EX: 0, EXP: 0.5, EXR: 0.5, F1: 0.5 });
  });

  it('below the 0.7 threshold nothing matches: EXP 1, EXR 0 without the penalty; all 0 with it', async () => {
    const gold: ResultTable = { columns: ['a'], rows: [[1]] };
    const predicted: ResultTable = { columns: ['b'], rows: [[2]] };
    const model = columnModel({ a: axis(0, 1), b: toward(0.7) });
    const free = await scoreTechniques(gold, predicted, { techniques: COLUMN_TECHNIQUES, embeddings: model, penalizeExtraColumns: false });
    assert.deepEqual(cells(free, 'semantic_column_and_exact_cell'), { EX: 0, EXP: 1, EXR: 0, F1: 0 });
    const penalized = await scoreTechniques(gold, predicted, {
      techniques: COLUMN_TECHNIQUES,
      embeddings: model,
      penalizeExtraColumns: true,
    });
    assert.deepEqual(cells(penalized, 'semantic_column_and_exact_cell'), { EX: 0, EXP: 0, EXR: 0, F1: 0 });
  });

  it('computes no embeddings when EX is 1, and reports "no embedding provider" without one', async () => {
    const table: ResultTable = { columns: ['a'], rows: [[1], [new PyFloat(2)]] };
    const same: ResultTable = { columns: ['z'], rows: [[new PyFloat(1)], [2], [2]] };
    const model = columnModel({});
    const report = await scoreTechniques(table, same, { embeddings: model });
    assert.equal(model.texts.length, 0);
    assert.deepEqual(report.scores.unified_column_and_semantic_row, { EX: 1, EXP: 1, EXR: 1, F1: 1 });
    assert.deepEqual(report.scores.execution_accuracy, { EX: 1 });
    const none = await scoreTechniques(table, { columns: ['a'], rows: [[3]] });
    assert.deepEqual(none.scores.semantic_column_and_exact_cell, { error: 'no embedding provider' });
    assert.deepEqual(none.scores.exact_column_and_exact_cell, { EX: 0, EXP: 0, EXR: 0, F1: 0 });
  });
});

describe('unified_column_and_semantic_row', () => {
  /** Row texts: equal texts get equal vectors; the test sets the rest. */
  const rowModel = (vectors: Record<string, number[]>): EmbeddingProvider => ({
    id: 'fake:rows',
    async embed(input) {
      return input.map((text) => Float32Array.from(vectors[text] ?? assert.fail(`no vector for ${text}`)));
    },
  });

  it('embeds one text per row over the union of names, matches rows by assignment, sums in float32', async () => {
    const gold: ResultTable = {
      columns: ['name', 'score'],
      rows: [
        ['Ann', new PyFloat(1.5)],
        ['Bob', null],
      ],
    };
    const predicted: ResultTable = { columns: ['name'], rows: [['Ann'], ['Cid'], ['Bob']] };
    const model = rowModel({
      'Ann | 1.5': [1, 0, 0],
      'Bob | None': [0, 1, 0],
      'Ann | N/A': [0.9, 0.1, 0.1],
      'Cid | N/A': [0, 0, 1],
      'Bob | N/A': [0.2, 0.9, 0],
    });
    const report = await scoreTechniques(gold, predicted, { techniques: ROW_TECHNIQUES, embeddings: model, details: true });
    const f32 = Math.fround;
    const cos = (u: number[], v: number[]) => {
      const n = (x: number[]) => f32(f32(Math.sqrt(f32(x.reduce((a, b) => a + f32(b) * f32(b), 0)))) + f32(1e-8));
      return f32(f32(u.reduce((a, x, i) => a + f32(x) * f32(v[i]), 0)) / f32(n(u) * n(v)));
    };
    // Coverage: the prediction has 1 of the 2 gold names.
    const s1 = f32(cos([0.9, 0.1, 0.1], [1, 0, 0]) * 0.5);
    const s2 = f32(cos([0.2, 0.9, 0], [0, 1, 0]) * 0.5);
    const sum = f32(f32(0 + s1) + s2);
    const unified = report.scores.unified_column_and_semantic_row as CellScores;
    assert.deepEqual([unified.EXP, unified.EXR], [f32(sum / 3), f32(sum / 2)]);
    const rows = report.details.unified_column_and_semantic_row!;
    assert.deepEqual(
      rows.predictedRows!.map((r) => [r.kind, r.partner]),
      [
        ['partial', 0],
        ['none', undefined],
        ['partial', 1],
      ],
    );
  });

  it('gives all zeros when exactly one side is empty, as SQLMorph', async () => {
    const report = await scoreTechniques(
      { columns: ['a'], rows: [[1]] },
      { columns: ['a'], rows: [] },
      { techniques: ROW_TECHNIQUES, embeddings: rowModel({}) },
    );
    assert.deepEqual(report.scores.unified_column_and_semantic_row, { EX: 0, EXP: 0, EXR: 0, F1: 0 });
    assert.deepEqual(report.scores.exact_column_and_exact_cell, { EX: 0, EXP: 1, EXR: 0, F1: 0 });
  });

  it('reports an error beyond its bound, the other techniques still score', async () => {
    const many: ResultTable = { columns: ['a'], rows: Array.from({ length: 1001 }, (_, i) => [i]) };
    const other: ResultTable = { columns: ['a'], rows: Array.from({ length: 1000 }, (_, i) => [i + 1]) };
    const report = await scoreTechniques(many, other, {
      embeddings: rowModel({}),
      techniques: ['unified_column_and_semantic_row', 'exact_column_and_exact_cell'],
    });
    assert.match((report.scores.unified_column_and_semantic_row as { error: string }).error, /exceed the bound/);
    assert.equal((report.scores.exact_column_and_exact_cell as CellScores).EXR, 1000 / 1001);
  });
});
