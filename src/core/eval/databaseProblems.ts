import { dbRootProblems } from '../bird/layout';
import { InputProblem } from '../bird/problems';
import type { DatabaseSource } from '../db/source';
import type { QuestionResult } from './types';

const MALFORMED = /database disk image is malformed/i;
const plural = (n: number, word: string) => `${n} question${n === 1 ? '' : 's'}${word ? ` ${word}` : ''}`;

function byDatabase(results: readonly QuestionResult[]): Map<string, QuestionResult[]> {
  const groups = new Map<string, QuestionResult[]>();
  for (const result of results) groups.set(result.db_id, [...(groups.get(result.db_id) ?? []), result]);
  return groups;
}

/**
 * What a finished run learned about its databases, one headline problem per database: locked by another
 * process (those questions scored 0 as the official scripts would after the same wait, so the scores are not
 * comparable with a run on an idle database), damaged pages ("malformed" behind an intact header), or not
 * openable at all (its questions skipped). Said once at the top, not only question by question.
 */
export function databaseRunProblems(source: Pick<DatabaseSource, 'label'>, results: readonly QuestionResult[]): InputProblem[] {
  const problems: InputProblem[] = [];
  for (const [dbId, all] of byDatabase(results)) {
    const file = source.label(dbId);
    const locked = all.filter((r) => r.outcome === 'locked');
    if (locked.length)
      problems.push({
        file,
        headline: true,
        message:
          `another process held this database locked past the busy timeout: ${plural(locked.length, 'scored 0')} (outcome "locked"), ` +
          'as the official scripts score them after the same wait; these scores are not comparable with a run on an idle database ' +
          '(run again when nothing else holds it, or raise --busy-timeout)',
      });
    const malformed = all.filter((r) => r.outcome !== 'skipped' && MALFORMED.test(r.error ?? ''));
    if (malformed.length)
      problems.push({
        file,
        headline: true,
        message:
          `damaged: SQLite reports "database disk image is malformed" on ${malformed.length} of its ${plural(all.length, '')} ` +
          '(the header is intact, pages are corrupt); those score 0, so these scores are not those of the database the questions ' +
          'were written for: restore the file (PRAGMA integrity_check lists the damage)',
      });
  }
  problems.push(
    ...unusableDatabaseProblems(
      source,
      results.map((r) => ({ db_id: r.db_id, skipped: r.outcome === 'skipped', error: r.error })),
      'scored',
    ),
  );
  return problems;
}

/** A question of a run, as far as its database goes. */
export interface DatabaseQuestion {
  db_id: string;
  skipped: boolean;
  error?: string | null;
}

/**
 * Databases that are there but cannot be used (a ZIP archive or a copy cut short named .sqlite, a permission, a
 * symbolic link loop): their questions are skipped, never scored 0, and the run is not comparable with one on the
 * whole dataset; one headline problem each, as for a locked database. Missing databases are only skipped.
 */
export function unusableDatabaseProblems(
  source: Pick<DatabaseSource, 'label'>,
  questions: readonly DatabaseQuestion[],
  done: 'scored' | 'judged' | 'audited',
): InputProblem[] {
  const problems: InputProblem[] = [];
  const groups = new Map<string, DatabaseQuestion[]>();
  for (const question of questions) groups.set(question.db_id, [...(groups.get(question.db_id) ?? []), question]);
  for (const [dbId, all] of groups) {
    const unopened = all.filter((q) => q.skipped && /^cannot open /.test(q.error ?? ''));
    if (unopened.length && unopened.length === all.length)
      problems.push({
        file: source.label(dbId),
        headline: true,
        message:
          `${plural(all.length, `skipped, not ${done}`)}: ${unopened[0].error}; the database is there but unusable, so these ` +
          'results are not comparable with a run on the whole dataset (restore the file)',
      });
  }
  return problems;
}

/** A question of a run (scored, judged, audited), as far as whether it ran. */
export interface RunQuestion {
  skipped: boolean;
  /** Why it was skipped (a missing database, ...). */
  error?: string | null;
}

/**
 * One line when a run did nothing at all (every question skipped): the run is then an input error (exit 2), not
 * a result. `done`: what the run does to a question.
 */
export function nothingDone(questions: readonly RunQuestion[], done: 'scored' | 'judged' | 'audited'): string | undefined {
  if (questions.length === 0 || questions.some((q) => !q.skipped)) return undefined;
  return `nothing was ${done}: all ${plural(questions.length, 'were')} skipped (first: ${questions[0].error ?? 'no database'})`;
}

/** nothingDone for scored questions (eval, and the judge's questions, whose EX runs first). */
export function nothingScored(results: readonly QuestionResult[], done: 'scored' | 'judged' = 'scored'): string | undefined {
  return nothingDone(
    results.map((r) => ({ skipped: r.outcome === 'skipped', error: r.error })),
    done,
  );
}

/** --db-root's layout problems (bird/layout.ts) for a run on SQLite files; none on a server, whose databases are no folders. */
export function sqliteDbRootProblems(
  source: Pick<DatabaseSource, 'engine'>,
  dbRoot: string | undefined,
  dbIds: readonly string[],
): InputProblem[] {
  return source.engine.name === 'sqlite' && dbRoot !== undefined ? dbRootProblems(dbRoot, dbIds) : [];
}
