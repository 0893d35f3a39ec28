/**
 * The inputs and limits a core message can send a person to, and how the face they use names each one: the
 * command line names its options (`--max-rows`), the editor its settings, dataset files and quick fixes.
 *
 * Core refers to an input by its key (`inputWording().rowLimit`) and never spells a face's control itself. The
 * face registers its one table when it starts (cli/inputWording.ts, server/editorText.ts), because these
 * messages are built deep in core where their facts are (a row limit is met inside a query run), and a process
 * serves one face only. Without a face (core used as a library, core's own tests) the plain words below apply.
 */
export interface InputWording {
  /** The gold file, as the subject of a sentence ("… takes the official gold file"). */
  goldFile: string;
  /** A question's line in the gold file ("takes its database from its … line"). */
  goldLine: string;
  /** That no gold file is part of the run, as a clause ("the question has no "SQL" field and …"). */
  noGoldFile: string;
  /** The most rows one result may have ("raise … to read it all"). */
  rowLimit: string;
  /** Running a hint's rewrite on the database before it is offered ("… measures it"). */
  verification: string;
  /** What scoring against the prediction file's own gold would do, as a clause ("…: <that gold>"). */
  scoreAgainstPredictionGold: string;
  /** How to score against the prediction file's own gold, said after the gold used; absent where the face has no such choice. */
  predictionGoldChoice?: string;
}

/** Plain words, naming no face's controls. */
const PLAIN_WORDING: InputWording = {
  goldFile: 'the gold file',
  goldLine: 'gold line',
  noGoldFile: 'no gold file was given',
  rowLimit: 'the row limit',
  verification: 'verification',
  scoreAgainstPredictionGold: "scoring against the prediction file's own gold would use it",
};

let current: InputWording = PLAIN_WORDING;

/** Makes `wording` the face's names for every message core builds from now on; a face calls it once, at start. */
export function useInputWording(wording: InputWording): void {
  current = wording;
}

/** The running face's names for the inputs. */
export function inputWording(): InputWording {
  return current;
}
