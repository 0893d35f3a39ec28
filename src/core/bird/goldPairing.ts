import * as path from 'path';

/**
 * Which gold file goes with a question file, told from their names. BIRD names a release's files alike and puts
 * the version after the first dot: `mini_dev_sqlite.v3.json` and `mini_dev_sqlite_gold.v3.sql`,
 * `dev.damo-2023.json` and `dev_gold.damo-2023.sql`, `mini_dev_superhero.json` and `mini_dev_superhero_gold.sql`.
 * With both mini-dev versions in one folder, the first gold by prefix or by folder is often another version's:
 * scored against it, every question would look wrong.
 */
export type GoldPairing =
  /** The gold file of this question file (same name and version), or the only gold file in its folder. */
  | { kind: 'paired'; goldFile: string }
  /** Several gold files could be this question file's: the person chooses (or the questions' own SQL). */
  | { kind: 'ask'; candidates: string[] }
  /** No gold file fits: the questions' own SQL field is the gold. */
  | { kind: 'none' };

interface FileName {
  /** The name before the first dot, without the `gold` word: `mini_dev_sqlite`, `dev`, '' for `gold.sql`. */
  base: string;
  /** What follows the first dot, without the extension: `v3`, `v1-2024`, `damo-2023`, '' when there is none. */
  version: string;
}

function fileName(file: string): FileName {
  const name = path.basename(file, path.extname(file)).toLowerCase();
  const dot = name.indexOf('.');
  const stem = dot === -1 ? name : name.slice(0, dot);
  const version = dot === -1 ? '' : name.slice(dot + 1);
  const base = stem
    .split(/[_-]/)
    .filter((word) => word !== 'gold')
    .join('_');
  return { base, version };
}

/** A gold file whose name says it belongs to another question set or another version of this one. */
function contradicts(question: FileName, gold: FileName): boolean {
  if (gold.base && gold.base !== question.base) return true;
  return Boolean(gold.version && question.version && gold.version !== question.version);
}

/**
 * Pairs a question file with one of the gold files found: the one of the same name and version; else, when the
 * question file's folder holds exactly one gold file whose name does not contradict it, that one (a lone
 * `gold.sql` beside `dev.json`); else every gold file whose name fits, for the person to choose from.
 */
export function pairGoldFile(questionsFile: string, goldFiles: readonly string[]): GoldPairing {
  const question = fileName(questionsFile);
  const fitting = goldFiles.filter((gold) => !contradicts(question, fileName(gold)));
  const exact = fitting.filter((gold) => {
    const name = fileName(gold);
    return name.base === question.base && name.version === question.version;
  });
  const nearest = (files: string[]) => files.filter((gold) => path.dirname(gold) === path.dirname(questionsFile));
  if (exact.length === 1) return { kind: 'paired', goldFile: exact[0] };
  if (exact.length > 1) {
    const beside = nearest(exact);
    return beside.length === 1 ? { kind: 'paired', goldFile: beside[0] } : { kind: 'ask', candidates: exact };
  }
  const inFolder = goldFiles.filter((gold) => path.dirname(gold) === path.dirname(questionsFile));
  if (inFolder.length === 1 && fitting.includes(inFolder[0])) return { kind: 'paired', goldFile: inFolder[0] };
  return fitting.length ? { kind: 'ask', candidates: fitting } : { kind: 'none' };
}
