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
    const unopened = all.filter((r) => r.outcome === 'skipped' && /^cannot open /.test(r.error ?? ''));
    if (unopened.length && unopened.length === all.length)
      problems.push({ file, headline: true, message: `${plural(all.length, 'skipped, not scored')}: ${unopened[0].error}` });
  }
  return problems;
}

/** One line when a run scored nothing at all (every question skipped): the run is then an input error, not a score. */
export function nothingScored(results: readonly QuestionResult[]): string | undefined {
  if (results.length === 0 || results.some((r) => r.outcome !== 'skipped')) return undefined;
  return `nothing was scored: all ${plural(results.length, 'were')} skipped (first: ${results[0].error ?? 'no database'})`;
}
