/**
 * The editor's Attach Dataset use case: which BIRD files a workspace holds, told by their first bytes (question
 * files, prediction files, eval reports), and the datasets they make: each question file with its gold (core's
 * pairing by name and version) and its nearest database root. The client finds the files; this decides.
 */
import * as fs from 'fs';
import * as path from 'path';
import { pairGoldFile } from '../core/bird/goldPairing';
import { looksLikeEvalReportText, looksLikePredictionText } from '../core/bird/predictionFields';

/** What a JSON file may be to the editor. */
export type JsonFileKind = 'questions' | 'predictions' | 'eval-report';

/** A BIRD question file by its first bytes: a JSON list of objects with db_id and SQL. */
function looksLikeQuestionFile(head: string): boolean {
  const text = head.trimStart();
  return text.startsWith('[') && /"db_id"\s*:/.test(text) && /"SQL"\s*:/.test(text) && /"question"\s*:/.test(text);
}

/**
 * Every kind a file's first bytes fit (none: not a BIRD file): a question file, a prediction file (the fields `eval`
 * reads, core/bird/predictionFields.ts), an `ves-lens eval --json` report (never a prediction file). A list whose
 * items hold a question and a prediction both is either.
 */
export function jsonFileKinds(head: string): JsonFileKind[] {
  const kinds: JsonFileKind[] = [];
  if (looksLikeQuestionFile(head)) kinds.push('questions');
  if (looksLikePredictionText(head)) kinds.push('predictions');
  if (looksLikeEvalReportText(head)) kinds.push('eval-report');
  return kinds;
}

/** A folder holding `<db_id>/<db_id>.sqlite` for at least one database. */
function isDatabaseRoot(folder: string): boolean {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .some((e) => e.isDirectory() && fs.existsSync(path.join(folder, e.name, `${e.name}.sqlite`)));
  } catch {
    return false;
  }
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
}

/** A dataset found in the workspace; `goldCandidates` when several gold files could be its own (the person chooses). */
export interface DetectedDataset {
  questionsFile: string;
  dbRoot: string;
  goldFile?: string;
  goldCandidates?: string[];
}

/** The files of a workspace the datasets are made of (JSON files told by their first bytes, `*.sqlite`, `*gold*.sql`). */
export interface WorkspaceFiles {
  questionFiles: readonly string[];
  sqliteFiles: readonly string[];
  goldFiles: readonly string[];
}

/** BIRD's layout in the workspace: each question file with its gold and its nearest database root. */
export function workspaceDatasets(files: WorkspaceFiles): DetectedDataset[] {
  const roots = [...new Set(files.sqliteFiles.map((file) => path.dirname(path.dirname(file))))].filter(isDatabaseRoot);
  const goldFiles = [...files.goldFiles].sort();
  const datasets: DetectedDataset[] = [];
  for (const questionsFile of [...files.questionFiles].sort()) {
    // Paired by name and version: with both mini-dev versions side by side, a prefix or the folder picks the wrong one.
    const pairing = pairGoldFile(questionsFile, goldFiles);
    const gold =
      pairing.kind === 'paired' ? { goldFile: pairing.goldFile } : pairing.kind === 'ask' ? { goldCandidates: pairing.candidates } : {};
    // The nearest database root: the one sharing the longest path with the question file.
    const dbRoot = [...roots].sort((a, b) => commonPrefix(b, questionsFile) - commonPrefix(a, questionsFile))[0];
    if (dbRoot) datasets.push({ questionsFile, dbRoot, ...gold });
  }
  return datasets;
}
