import { GoldFile } from './gold';
import { PredictionFile } from './predictions';
import { Question } from './questions';

/**
 * A gold or prediction file paired by position that is shifted against the question file: a line lost or added
 * somewhere moves every later question onto its neighbour's gold or prediction, and each is scored against the
 * wrong one. The question file itself tells: its own `SQL` (for a gold file) and its `db_id`s (for both) line up
 * with the shifted file only at an offset, from the first moved line on.
 */
export interface Shift {
  /** The first question (0-based position) paired with another question's line. */
  from: number;
  /** Lines the file is shifted by: +1 when a line is missing (line i holds question i + 1's), -1 for an extra line. */
  offset: number;
  /** Questions paired with another question's line (from `from` to the end of what both cover). */
  moved: number;
  /** How many of the compared positions agree with the question file as paired, and at the offset, from `from` on. */
  agreeAsPaired: number;
  agreeAtOffset: number;
  compared: number;
  /** False when told from db_ids, which disagree only where a database's run ends: the shift may start earlier. */
  exact: boolean;
}

const MAX_OFFSET = 5;

/** The SQL as written, without what formatting changes (case, spaces, a final `;`). */
const normalized = (sql: string | undefined) =>
  sql === undefined ? undefined : sql.replace(/\s+/g, ' ').replace(/;\s*$/, '').trim().toLowerCase() || undefined;

/**
 * Where the keys of a file (`theirs`, by position) stop agreeing with the question file's (`ours`) and agree again
 * at an offset. Undefined keys say nothing. `strict`: the keys are nearly unique (SQL), so an agreement at the
 * offset must outnumber the one as paired; db_ids come in runs and only their boundaries disagree.
 */
export function findShift(
  ours: readonly (string | undefined)[],
  theirs: readonly (string | undefined)[],
  strict: boolean,
): Shift | undefined {
  const agrees = (i: number, offset: number) => {
    const a = ours[i + offset];
    const b = theirs[i];
    return a !== undefined && b !== undefined && a === b;
  };
  const known = (i: number, offset: number) => ours[i + offset] !== undefined && theirs[i] !== undefined;
  const n = Math.min(ours.length, theirs.length);
  // The first position that disagrees as paired but agrees at some offset.
  for (let from = 0; from < n; from++) {
    if (!known(from, 0) || agrees(from, 0)) continue;
    for (const offset of offsets()) {
      if (!agrees(from, offset)) continue;
      let asPaired = 0;
      let atOffset = 0;
      let disagreeAsPaired = 0;
      let disagreeAtOffset = 0;
      let compared = 0;
      for (let i = from; i < n; i++) {
        if (!known(i, 0) || !known(i, offset)) continue;
        compared++;
        if (agrees(i, 0)) asPaired++;
        else disagreeAsPaired++;
        if (agrees(i, offset)) atOffset++;
        else disagreeAtOffset++;
      }
      const shifted = strict
        ? atOffset >= 3 && atOffset >= 2 * asPaired && atOffset >= compared / 2
        : disagreeAsPaired >= 2 && disagreeAtOffset * 10 <= disagreeAsPaired;
      if (shifted) {
        // Every question from there on is paired with another question's line (or none).
        return { from, offset, moved: ours.length - from, agreeAsPaired: asPaired, agreeAtOffset: atOffset, compared, exact: strict };
      }
    }
    // Only the first disagreement is looked at: one lost or added line shows there.
    if (strict) return undefined;
  }
  return undefined;
}

function* offsets(): Generator<number> {
  for (let k = 1; k <= MAX_OFFSET; k++) {
    yield k;
    yield -k;
  }
}

/** A gold file shifted against the question file's own SQL (or, without it, its db_ids). */
export function goldShift(questions: readonly Question[], gold: GoldFile): Shift | undefined {
  const ours = questions.map((q) => normalized(q.sql));
  // Without the questions' own SQL, the db_ids of the gold lines tell (at the boundaries of each database's run).
  if (ours.every((sql) => sql === undefined))
    return findShift(
      questions.map((q) => q.dbId || undefined),
      gold.entries.map((entry) => entry?.dbId || undefined),
      false,
    );
  return findShift(
    ours,
    gold.entries.map((entry) => normalized(entry?.sql)),
    true,
  );
}

/**
 * The tables a query reads (the names after FROM and JOIN, lowercased and sorted), a fingerprint that a prediction
 * shares with its own question's gold far more often than with a neighbour's: 54–81 % against 17–24 % on mini-dev's
 * official files.
 */
function tablesRead(sql: string | undefined): string | undefined {
  if (!sql) return undefined;
  const names = new Set<string>();
  for (const match of sql.toLowerCase().matchAll(/\b(?:from|join)\s+[`"[]?([a-z_]\w*)/g)) names.add(match[1]);
  return names.size ? [...names].sort().join(',') : undefined;
}

/**
 * A shift told by fingerprints that agree as paired only most of the time (tablesRead): the start and offset from
 * which agreements at the offset most outnumber those as paired, if from there on (30 positions or more) they are at least 10, twice those
 * as paired and a third of the positions compared.
 */
function findLooseShift(ours: readonly (string | undefined)[], theirs: readonly (string | undefined)[]): Shift | undefined {
  const n = Math.min(ours.length, theirs.length);
  const agree = (i: number, offset: number) => (ours[i + offset] !== undefined && ours[i + offset] === theirs[i] ? 1 : 0);
  let best: Shift | undefined;
  let bestLead = 0;
  for (const offset of offsets()) {
    let asPaired = 0;
    let atOffset = 0;
    let compared = 0;
    // From the end backwards: the counts are those of the tail from `from` on.
    for (let from = n - 1; from >= 0; from--) {
      if (theirs[from] === undefined || ours[from] === undefined || ours[from + offset] === undefined) continue;
      compared++;
      asPaired += agree(from, 0);
      atOffset += agree(from, offset);
      const lead = atOffset - asPaired;
      if (compared >= 30 && atOffset >= 10 && atOffset >= 2 * asPaired && 3 * atOffset >= compared && lead > bestLead) {
        bestLead = lead;
        best = { from, offset, moved: ours.length - from, agreeAsPaired: asPaired, agreeAtOffset: atOffset, compared, exact: false };
      }
    }
  }
  return best;
}

/**
 * A prediction file paired by position whose db_ids line up with the questions' only at an offset; without
 * db_ids (one SQL a line), whose tables line up with those of the questions' own SQL only at an offset.
 */
export function predictionShift(questions: readonly Question[], predictions: PredictionFile): Shift | undefined {
  if (predictions.pairing !== 'position') return undefined;
  if (!predictions.predictions.some((p) => p.dbId))
    return findLooseShift(
      questions.map((q) => tablesRead(q.sql)),
      predictions.predictions.map((p) => tablesRead(p.sql)),
    );
  return findShift(
    questions.map((q) => q.dbId || undefined),
    predictions.predictions.map((p) => p.dbId || undefined),
    false,
  );
}

/** `line 53 on (question 1340): each line is the next question's; 33 questions move` , for a message. */
export function shiftText(shift: Shift, unit: 'gold line' | 'prediction', questions: readonly Question[]): string {
  const question = questions[shift.from];
  const direction =
    shift.offset > 0
      ? `${shift.offset === 1 ? 'a line is' : `${shift.offset} lines are`} missing before it: each ${unit} from there on is the one of the question ${shift.offset} further on`
      : `${-shift.offset === 1 ? 'an extra line stands' : `${-shift.offset} extra lines stand`} before it: each ${unit} from there on is the one of the question ${-shift.offset} before`;
  return (
    `shifted from question ${question?.questionId ?? shift.from} (position ${shift.from + 1})${shift.exact ? '' : ' or earlier'} on: ${direction} ` +
    `(${shift.agreeAtOffset} of ${shift.compared} agree with the question file shifted, ${shift.agreeAsPaired} as paired); ` +
    `paired by position it moves ${shift.exact ? '' : 'at least '}${shift.moved} question${shift.moved === 1 ? '' : 's'} onto another question's ${unit}`
  );
}
