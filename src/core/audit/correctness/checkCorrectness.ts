import { Question } from '../../bird/questions';
import { Row } from '../../db/database';
import { DatabaseConnection } from '../../db/engine';
import { dialectOf, QueryRun, readQuery, runnableBody } from '../../db/readQuery';
import { sameResultSet } from '../../metrics/executionMatch';
import { jsonValue } from '../../results/jsonValue';
import { rowKey } from '../../results/valueKey';
import { upperWord } from '../../sql/keywords';
import { outputColumns } from '../../sql/scope';
import { CorrectnessEvidence, CorrectnessFinding, CorrectnessKind, ORDER_DEPENDENT_KINDS } from './kinds';
import { PredictionAgreement, predictionsDisagree } from './predictionsDisagree';
import { bareColumnProbe, blockText, ParsedGold, parseGold, rankingProbe, SelectBlock, spliceBlock, widenedLimit } from './selectBlocks';

/**
 * `audit --correctness`: is the gold right, judged on its data? Each check runs the gold (or a probe built from
 * its own text) on the same read-only connection and reports only what the data shows:
 * - the gold again with unordered scans reversed (SQLite's reverse_unordered_selects): a result that changes
 *   depends on the row order, or (only float digits changed) on the float summation order;
 * - each LIMIT without ORDER BY run with a wider LIMIT: the rows it leaves out differ from those it keeps;
 * - each ORDER BY … LIMIT run with its keys as extra columns and a wider LIMIT: a tie across the cut, a NULL
 *   key ranked first where the question asks for a highest/lowest, numbers stored as text ranked as text;
 * - each column beside an aggregate: how many values it takes in one group;
 * - a ratio or percentage: the gold again with real division;
 * - the clock or random(), no rows, and (with prediction files) predictions that agree against the gold.
 */

export interface CorrectnessOptions {
  timeoutMs: number;
  maxRows: number;
  /** Per prediction file: each question's prediction, its outcome and SQL (predictions_disagree). */
  predictions?: readonly PredictionAgreement[];
  signal?: AbortSignal;
}

/** Rows a probe reads past the cut (ties, NULLs, numbers as text): the shared BIRD tables hold far fewer. */
const LOOKAHEAD = 1000;
/** Rows shown as evidence. */
const SHOWN = 5;

const shown = (rows: readonly Row[]) => rows.slice(0, SHOWN).map((row) => row.map(jsonValue));

/** A question that asks for the highest/lowest of something. */
const RANKING_WORDS =
  /\b(highest|lowest|most|least|top|bottom|max(imum)?|min(imum)?|largest|smallest|biggest|greatest|fewest|oldest|youngest|earliest|latest|first|last|longest|shortest|tallest|heaviest|lightest|best|worst|cheapest|expensive|rank(ed|ing)?)\b/i;
/** A question that asks for a ratio, a percentage or an average. */
const RATIO_WORDS = /\b(ratio|percent(age)?s?|proportion|rate|average|avg|fraction|share|times)\b|%/i;
const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

interface Context {
  db: DatabaseConnection;
  question: Question;
  gold: ParsedGold;
  rows: Row[];
  options: CorrectnessOptions;
}

/** A finding of one SELECT block, with what the block would return under the other reading (its pick, its order). */
type BlockFinding = CorrectnessFinding & { alternative?: Row[] };

async function probe(context: Context, sql: string): Promise<Row[] | undefined> {
  const { timeoutMs, maxRows, signal } = context.options;
  const run = await readQuery(context.db, sql, { deadline: performance.now() + timeoutMs, budgetMs: timeoutMs, maxRows, signal });
  return run.status === 'ok' ? run.rows : undefined;
}

const where = (block: SelectBlock) => (block.topLevel ? '' : ' (in a subquery)');
const windowOf = (block: SelectBlock, options: CorrectnessOptions) =>
  Math.min(block.limit!.offset + block.limit!.count + LOOKAHEAD, options.maxRows);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** LIMIT without ORDER BY: the rows left out hold rows the kept ones do not, so which are kept depends on the scan. */
async function limitWithoutOrder(context: Context, block: SelectBlock): Promise<BlockFinding | undefined> {
  if (!block.limit || block.orderKeys.length || block.clauses.compound) return undefined;
  const window = windowOf(block, context.options);
  const sql = widenedLimit(context.gold, block, window);
  const rows = await probe(context, sql);
  if (!rows) return undefined;
  const { offset, count } = block.limit;
  const kept = rows.slice(offset, offset + count);
  const keptKeys = new Set(kept.map(rowKey));
  const others = [...rows.slice(0, offset), ...rows.slice(offset + count)].filter((row) => !keptKeys.has(rowKey(row)));
  if (others.length === 0) return undefined;
  const total = rows.length === window ? `at least ${rows.length}` : String(rows.length);
  return {
    kind: 'limit_without_order_by',
    detail:
      `LIMIT ${count}${offset ? ` OFFSET ${offset}` : ''} without ORDER BY${where(block)} keeps ${kept.length} of ${total} rows, ` +
      `${others.length} of the others different: which ones depends on the order SQLite scans the rows`,
    evidence: {
      check: 'the SELECT with a wider LIMIT',
      sql,
      rows_as_written: shown(kept),
      rows_of_check: shown(others),
      row_counts: { as_written: kept.length, check: rows.length },
    },
    alternative: [...others, ...kept].slice(0, kept.length),
  };
}

/** What a ranking (ORDER BY … LIMIT) shows once its keys and the rows past its cut are read. */
async function rankingFindings(context: Context, block: SelectBlock): Promise<BlockFinding[]> {
  if (!block.limit) return [];
  const window = windowOf(block, context.options);
  const built = rankingProbe(context.gold, block, window);
  if (!built) return [];
  const rows = await probe(context, built.sql);
  if (!rows || rows.length === 0) return [];
  const extras = built.keyColumns.filter((c) => c === 'extra').length;
  const width = rows[0].length - extras;
  const output = (row: Row) => row.slice(0, width);
  const keyOf = (row: Row) => {
    let extra = 0;
    return built.keyColumns.map((c) => (c === 'extra' ? row[width + extra++] : row[c]));
  };
  const keyText = (row: Row) => rowKey(keyOf(row));
  const { offset, count } = block.limit!;
  const end = Math.min(offset + count, rows.length);
  const kept = rows.slice(offset, end);
  const complete = rows.length < window;
  const keys = block.orderKeys.map((k) => `${k.text}${k.descending ? ' DESC' : ''}`).join(', ');
  const cut = `ORDER BY ${keys} LIMIT ${count}${offset ? ` OFFSET ${offset}` : ''}${where(block)}`;
  const findings: BlockFinding[] = [];
  // What the block returns with some of its kept rows swapped for others.
  const swapped = (out: Row[], ins: Row[]) => [...kept.filter((row) => !out.includes(row)), ...ins.slice(0, out.length)].map(output);

  // A tie across a cut (after the last kept row, or before the first when there is an OFFSET).
  for (const [inside, outside] of [
    [end - 1, end],
    [offset, offset - 1],
  ]) {
    if (outside < 0 || outside >= rows.length || inside < offset || keyText(rows[inside]) !== keyText(rows[outside])) continue;
    const boundary = keyText(rows[inside]);
    const tied = rows.filter((row) => keyText(row) === boundary);
    const keptTied = kept.filter((row) => keyText(row) === boundary);
    const keptOutputs = new Set(keptTied.map((row) => rowKey(output(row))));
    const leftOut = rows.filter((row, i) => (i < offset || i >= end) && keyText(row) === boundary && !keptOutputs.has(rowKey(output(row))));
    if (leftOut.length === 0) continue;
    const atLeast = !complete && keyText(rows[rows.length - 1]) === boundary;
    findings.push({
      kind: 'limit_through_tie',
      detail:
        `${cut} cuts through ${atLeast ? 'at least ' : ''}${tied.length} rows that share the key ${JSON.stringify(keyOf(rows[inside]).map(jsonValue))}: ` +
        `it keeps ${keptTied.length}, and which ones depends on the order SQLite meets them`,
      evidence: {
        check: 'the ranking with its keys and the rows past its cut',
        sql: built.sql,
        rows_as_written: shown(kept.map(output)),
        rows_of_check: shown(leftOut.map(output)),
        boundary: {
          key: keyOf(rows[inside]).map(jsonValue),
          tied_rows: tied.length,
          kept: keptTied.length,
          ...(atLeast ? { at_least: true } : {}),
        },
      },
      alternative: swapped(keptTied.slice(0, 1), leftOut),
    });
    break;
  }

  // The first key: NULLs ranked first, numbers stored as text.
  const primary = block.orderKeys[0];
  const firstKey = (row: Row) => keyOf(row)[0];
  const asking = RANKING_WORDS.exec(`${context.question.question} ${context.question.evidence}`);
  const keptNull = kept.filter((row) => firstKey(row) === null);
  const rankedAfter = rows.slice(end).filter((row) => firstKey(row) !== null);
  if (asking && !primary.nullsPlaced && keptNull.length && rankedAfter.length) {
    findings.push({
      kind: 'nulls_first_in_ranking',
      detail:
        `the question asks for "${asking[0]}", and ${cut} keeps ${plural(keptNull.length, 'row')} whose ${primary.text} is NULL ` +
        `(NULLs sort ${primary.descending ? 'last' : 'first'} ${primary.descending ? 'descending' : 'ascending'}) ahead of rows with a value`,
      evidence: {
        check: 'the ranking with its keys and the rows past its cut',
        sql: built.sql,
        rows_as_written: shown(kept.map(output)),
        rows_of_check: shown(rankedAfter.map(output)),
        boundary: { key: [null], tied_rows: rows.filter((row) => firstKey(row) === null).length, kept: keptNull.length },
      },
      alternative: swapped(keptNull, rankedAfter),
    });
  }
  const values = rows.map(firstKey).filter((v) => v !== null);
  if (complete && values.length > 1 && values.every((v) => typeof v === 'string' && NUMERIC_TEXT.test(v)) && new Set(values).size > 1) {
    const sign = primary.descending ? -1 : 1;
    const numeric = rows
      .map((row, i) => ({ row, i }))
      .sort((a, b) => {
        const [x, y] = [firstKey(a.row), firstKey(b.row)];
        if (x === null || y === null) return x === y ? a.i - b.i : (x === null ? -1 : 1) * sign;
        return sign * (Number(x) - Number(y)) || a.i - b.i;
      })
      .map((x) => x.row)
      .slice(offset, offset + count);
    const keptSet = new Set(kept.map((row) => rowKey(output(row))));
    const numericOnly = numeric.filter((row) => !keptSet.has(rowKey(output(row))));
    if (numericOnly.length) {
      findings.push({
        kind: 'numeric_text_order_key',
        detail:
          `${cut} sorts ${primary.text}, numbers stored as text, as text (${JSON.stringify(firstKey(kept[0]))} ranks ` +
          `${primary.descending ? 'above' : 'below'} ${JSON.stringify(firstKey(numericOnly[0]))}): in numeric order other rows are kept`,
        evidence: {
          check: 'the ranking with its keys, re-sorted as numbers',
          sql: built.sql,
          rows_as_written: shown(kept.map(output)),
          rows_of_check: shown(numeric.map(output)),
        },
        alternative: numeric.map(output),
      });
    }
  }
  return findings;
}

/** A column beside an aggregate, not grouped: how many values it takes in one output row's group. */
async function bareColumns(context: Context, block: SelectBlock): Promise<CorrectnessFinding | undefined> {
  // In a subquery the pick's effect on the gold's own result is not probed: the reversed run may still show it.
  if (!block.topLevel || !block.aggregates.length || !block.bareColumns.length || block.windowed) return undefined;
  // With one MIN() or MAX() alone SQLite takes the bare columns from the row holding the extreme (a tie shows
  // in the reversed run).
  if (block.aggregates.length === 1 && /^(MIN|MAX)\s*\(/i.test(block.aggregates[0])) return undefined;
  for (const column of block.bareColumns) {
    const sql = bareColumnProbe(context.gold, block, column);
    const rows = sql && (await probe(context, sql));
    const most = rows?.[0]?.[0];
    if (typeof most !== 'number' || most < 2) continue;
    return {
      kind: 'bare_column_with_aggregate',
      detail:
        `${column} stands beside ${block.aggregates[0]}${where(block)} without being grouped or aggregated: ` +
        `it takes ${most} different values among the rows ${block.clauses.groupBy === undefined ? 'aggregated' : 'of one group'}, and SQLite returns whichever it met last`,
      evidence: { check: 'how many values the column takes in one group', sql, rows_of_check: [[most]] },
    };
  }
  return undefined;
}

/** A value as an SQL literal; undefined for what has none here (an engine's typed values). */
function literal(value: Row[number]): string | undefined {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  return undefined;
}

/**
 * A subquery's finding matters only if its other reading changes the gold's own result: the gold runs again with
 * the subquery replaced by the rows it would return then (literal SELECTs under its column names). A tie between
 * two molecules that are both carcinogenic (question 244's) changes nothing and is dropped.
 */
async function changesGoldResult(context: Context, block: SelectBlock, finding: BlockFinding): Promise<BlockFinding | undefined> {
  const { gold } = context;
  const names = outputColumns(gold.tokens, block.start, block.end);
  const rows = finding.alternative;
  if (!names || !rows?.length || !gold.blocks[0]) return undefined;
  const selects = rows.map((row) => {
    const values = row.map((v, i) => ({ v: literal(v), name: names[i] }));
    return values.every((x) => x.v !== undefined && x.name !== undefined)
      ? `SELECT ${values.map((x) => `${x.v} AS "${x.name!.replace(/"/g, '""')}"`).join(', ')}`
      : undefined;
  });
  if (selects.some((x) => x === undefined) || selects.length === 0) return undefined;
  const sql = spliceBlock(gold, gold.blocks[0], [{ from: block.start, to: block.end, text: selects.join(' UNION ALL ') }]);
  const other = await probe(context, sql);
  if (!other || sameResultSet(other, context.rows)) return undefined;
  return {
    ...finding,
    detail: `${finding.detail}; the gold then returns ${JSON.stringify(shown(other)).slice(0, 120)} instead of ${JSON.stringify(shown(context.rows)).slice(0, 120)}`,
    evidence: { ...finding.evidence, gold_with_other_pick: { sql, rows: shown(other) } },
  };
}

/** Numbers of two results matched row by row once rounded: the results differ only past the 12th digit. */
function floatOnlyDifference(a: readonly Row[], b: readonly Row[]): { absolute: number; relative: number } | undefined {
  const rounded = (row: Row) => rowKey(row.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v)));
  const byRounded = new Map(b.map((row) => [rounded(row), row]));
  if (
    !sameResultSet(
      a.map((row) => [rounded(row)]),
      b.map((row) => [rounded(row)]),
    )
  )
    return undefined;
  let absolute = 0;
  let relative = 0;
  for (const row of a) {
    const other = byRounded.get(rounded(row))!;
    row.forEach((v, i) => {
      const w = other[i];
      if (typeof v !== 'number' || typeof w !== 'number' || v === w) return;
      absolute = Math.max(absolute, Math.abs(v - w));
      relative = Math.max(relative, Math.abs(v - w) / Math.max(Math.abs(v), Math.abs(w)));
    });
  }
  return absolute > 0 ? { absolute, relative } : undefined;
}

/** The gold again with unordered scans reversed: its rows, or undefined where the engine cannot or it failed. */
async function reversedRun(context: Context): Promise<Row[] | undefined> {
  const { db } = context;
  if (!db.setUnorderedScans) return undefined;
  await db.setUnorderedScans('reversed');
  try {
    return await probe(context, context.gold.body);
  } finally {
    await db.setUnorderedScans('forward');
  }
}

/** The reversed run's check, as its evidence names it. */
export const REVERSED_CHECK = 'the gold again with unordered scans reversed (reverse_unordered_selects)';

/** Which order-dependent kind a result that changed under reversed scans is, from the gold's shape. */
function orderKindOf(gold: ParsedGold): CorrectnessKind {
  const blocks = gold.blocks.filter((b) => !b.clauses.compound);
  if (blocks.some((b) => b.hasLimit && b.orderKeys.length === 0)) return 'limit_without_order_by';
  if (blocks.some((b) => b.hasLimit && b.orderKeys.length > 0)) return 'limit_through_tie';
  if (blocks.some((b) => b.aggregates.length && b.bareColumns.length && !b.windowed)) return 'bare_column_with_aggregate';
  return 'row_order';
}

/** The reversed run's finding, merged into a probe's finding of the same kind when there is one. */
function reversedFinding(context: Context, reversed: Row[], findings: CorrectnessFinding[]): void {
  const { rows } = context;
  const floats = floatOnlyDifference(rows, reversed);
  const evidence: CorrectnessEvidence = {
    check: REVERSED_CHECK,
    rows_as_written: shown(rows),
    rows_of_check: shown(reversed),
    row_counts: { as_written: rows.length, check: reversed.length },
  };
  if (floats) {
    const first = rows.flat().find((v, i) => typeof v === 'number' && v !== reversed.flat()[i]);
    const other = first === undefined ? undefined : reversed.flat()[rows.flat().indexOf(first)];
    const values = first === undefined ? '' : ` (${String(first)} as written, ${String(other)} reversed)`;
    findings.push({
      kind: 'float_summation_order',
      detail:
        `its float result changes with the order rows are added${values}: by up to ${floats.absolute.toPrecision(2)} ` +
        `(relative ${floats.relative.toPrecision(2)}); EX compares floats exactly, so a right prediction that adds in another order scores 0`,
      evidence: { ...evidence, difference: floats },
    });
    return;
  }
  const kind = orderKindOf(context.gold);
  const same = findings.find((f) => f.kind === kind) ?? findings.find((f) => ORDER_DEPENDENT_KINDS.has(f.kind));
  const changed = `with unordered scans reversed it returns other rows (${rows.length} as written, ${reversed.length} reversed, not the same set)`;
  if (same) {
    same.detail += `; ${changed}`;
    same.evidence = { ...same.evidence, reversed_scan: evidence };
    return;
  }
  findings.push({ kind, detail: `${changed}: the result depends on the physical row order`, evidence });
}

/** Integer division where a ratio is asked: the gold again with `a * 1.0 / b` for each `a / b` returns other rows. */
async function integerDivision(context: Context): Promise<CorrectnessFinding | undefined> {
  const { gold, question } = context;
  const asked = RATIO_WORDS.exec(`${question.question} ${question.evidence}`);
  const divisions = gold.tokens.map((t, i) => (t.kind === 'punct' && t.text === '/' ? i : -1)).filter((i) => i >= 0);
  if (!asked || divisions.length === 0 || !gold.blocks[0]) return undefined;
  const sql = spliceBlock(
    gold,
    gold.blocks[0],
    divisions.map((i) => ({ from: i, to: i + 1, text: '* 1.0 /' })),
  );
  const real = await probe(context, sql);
  if (!real || sameResultSet(real, context.rows)) return undefined;
  return {
    kind: 'integer_division_ratio',
    detail:
      `the question asks for a ${asked[0].toLowerCase()}, and the gold divides integers: ` +
      `${JSON.stringify(shown(context.rows)[0] ?? [])} as written, ${JSON.stringify(shown(real)[0] ?? [])} with real division`,
    evidence: {
      check: 'the gold again with real division (a * 1.0 / b)',
      sql,
      rows_as_written: shown(context.rows),
      rows_of_check: shown(real),
    },
  };
}

/** CURRENT_DATE, date('now'), random(): calls whose value depends on when (or how often) the gold runs. */
function nondeterministic(gold: ParsedGold): CorrectnessFinding | undefined {
  const calls: string[] = [];
  gold.tokens.forEach((token, i) => {
    const word = upperWord(token);
    if (['CURRENT_DATE', 'CURRENT_TIME', 'CURRENT_TIMESTAMP', 'LOCALTIMESTAMP'].includes(word)) calls.push(token.text);
    else if (['RANDOM', 'RANDOMBLOB', 'NOW', 'CLOCK_TIMESTAMP'].includes(word) && gold.tokens[i + 1]?.text === '(')
      calls.push(`${token.text}()`);
    else if (token.kind === 'string' && /^'now'$/i.test(token.text)) calls.push(token.text);
  });
  if (calls.length === 0) return undefined;
  const clock = calls.some((c) => !/random/i.test(c));
  return {
    kind: 'nondeterministic_function',
    detail: `it calls ${[...new Set(calls)].join(', ')}: its result ${clock ? 'depends on the day it runs' : 'changes from run to run'}, so the gold is only right ${clock ? 'on some days' : 'by chance'}`,
    evidence: { check: 'the calls in the gold', calls: [...new Set(calls)] },
  };
}

/** Every correctness finding of one gold that ran (`run` is its result as written). */
export async function checkCorrectness(
  db: DatabaseConnection,
  question: Question,
  goldSql: string,
  run: QueryRun,
  options: CorrectnessOptions,
): Promise<CorrectnessFinding[]> {
  const runnable = runnableBody(goldSql, dialectOf(db.engine));
  if (run.status !== 'ok' || 'status' in runnable || runnable.body === '') return [];
  const context: Context = { db, question, gold: parseGold(runnable.body), rows: run.rows, options };
  const findings: CorrectnessFinding[] = [];
  for (const block of context.gold.blocks) {
    if (options.signal?.aborted) break;
    // A subquery that does not run on its own (correlated, or reading a CTE) has no probe: its probes fail and say nothing.
    if (!block.topLevel && !(await probe(context, blockText(context.gold, block)))) continue;
    const found = [await limitWithoutOrder(context, block), ...(await rankingFindings(context, block)), await bareColumns(context, block)];
    for (const candidate of found) {
      const finding = candidate && (block.topLevel ? candidate : await changesGoldResult(context, block, candidate));
      if (!finding || findings.some((f) => f.kind === finding.kind)) continue;
      const { alternative, ...plain } = finding as BlockFinding; // eslint-disable-line @typescript-eslint/no-unused-vars
      findings.push(plain);
    }
  }
  const reversed = await reversedRun(context);
  if (reversed && !sameResultSet(reversed, run.rows)) reversedFinding(context, reversed, findings);
  const division = await integerDivision(context);
  if (division) findings.push(division);
  const clock = nondeterministic(context.gold);
  if (clock) findings.push(clock);
  if (run.rows.length === 0)
    findings.push({
      kind: 'no_rows',
      detail: 'returns no rows: every prediction that returns nothing is scored correct',
      evidence: { check: 'the gold as written', row_counts: { as_written: 0, check: 0 } },
    });
  const disagreement = options.predictions?.length ? await predictionsDisagree(db, question, run.rows, options) : undefined;
  if (disagreement) findings.push(disagreement);
  return findings;
}
