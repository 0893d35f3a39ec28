import { InputWording } from '../core/text/inputWording';

/** How the command line names what core's messages refer to: by its options. */
export const COMMAND_LINE_WORDING: InputWording = {
  goldFile: '--gold',
  goldLine: '--gold line',
  noGoldFile: 'no --gold file was given',
  rowLimit: '--max-rows',
  verification: '--verify',
  scoreAgainstPredictionGold: '--gold-from predictions would score against it',
  predictionGoldChoice: "--gold-from predictions scores against the file's own",
};
