import { InputFileError, InputProblem } from './problems';
import { readTextFile, startsAsJson } from './jsonFile';
import { inputWording } from '../text/inputWording';

export interface GoldEntry {
  sql: string;
  dbId: string;
  line: number;
}

export interface GoldFile {
  file: string;
  /** By position: entry i is the gold of question i. Undefined where the line could not be read. */
  entries: (GoldEntry | undefined)[];
  problems: InputProblem[];
}

/** Reads a BIRD gold file: one `SQL<TAB>db_id` a line, in question order. */
export function loadGold(file: string): GoldFile {
  const text = readTextFile(file, 'gold file');
  if (startsAsJson(text)) {
    throw new InputFileError({
      file,
      message:
        `JSON, not a gold file: ${inputWording().goldFile} takes the official gold file, one "SQL<TAB>db_id" a line ` +
        "(the question file's own SQL is the default gold)",
    });
  }
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  const problems: InputProblem[] = [];
  const entries = lines.map((raw, i): GoldEntry | undefined => {
    const line = raw.trim();
    const tab = line.lastIndexOf('\t');
    if (tab === -1) {
      problems.push({ file, where: `line ${i + 1}`, message: 'expected "SQL<TAB>db_id"' });
      return undefined;
    }
    return { sql: line.slice(0, tab), dbId: line.slice(tab + 1).trim(), line: i + 1 };
  });
  return { file, entries, problems };
}
