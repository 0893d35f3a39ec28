import { Command } from 'commander';

const SAMPLE = '--questions sample/mini_dev_superhero.json --gold sample/mini_dev_superhero_gold.sql --db-root sample';
const HERO_DB = '--db sample/superhero/superhero.sqlite';
const HERO_QUERY = '"SELECT superhero_name FROM superhero WHERE height_cm > 200"';

/** One or two command lines per command, run from the repository (the sample/ files ship with it). */
export const HELP_EXAMPLES: Record<string, readonly string[]> = {
  eval: [
    `ves-lens eval ${SAMPLE} --predictions sample/predict_gpt-4_superhero.json --json run.json --html run.html`,
    `ves-lens eval ${SAMPLE} --predictions sample/predict_gpt-4_superhero.json --shard auto --shard-count 4 --json shard.json`,
  ],
  compare: ['ves-lens compare baseline.json new.json --html compare.html', 'ves-lens compare baseline.json new.json --json > compare.json'],
  merge: ['ves-lens merge shard-1.json shard-2.json shard-3.json shard-4.json --json run.json --html run.html'],
  audit: [`ves-lens audit ${SAMPLE} --predictions run.json --json audit.json --html audit.html`],
  judge: [
    `ves-lens judge ${SAMPLE} --predictions sample/predict_gpt-4_superhero.json --endpoint http://localhost:11434/v1 --model qwen2.5 --json judged.json`,
  ],
  agree: ['ves-lens agree --labels rose-vec-bird.json --verdicts judged.json --json agreement.json'],
  explain: [`ves-lens explain ${HERO_DB} ${HERO_QUERY}`, `ves-lens explain ${HERO_DB} --file queries.sql --json plans.json`],
  indexes: [`ves-lens indexes ${HERO_DB} ${HERO_QUERY} --measure --json indexes.json`],
  hints: [`ves-lens hints ${HERO_DB} --file queries.sql --verify --json hints.json`],
  rerank: [
    `ves-lens rerank ${HERO_DB} --candidates candidates.sql --json`,
    `ves-lens rerank ${SAMPLE} --predictions a.json b.json c.json --out picked.json --json rerank.json`,
  ],
  scale: ['ves-lens scale sample/superhero/superhero.sqlite --factor 10 --out /tmp/superhero_x10.sqlite --json scale.json'],
  load: ['ves-lens load --from sample --to postgresql://postgres@localhost:5432/bird --json load.json'],
};

/** Ends every command's help with its examples (a command without one is a test failure, not a silent gap). */
export function addHelpExamples(program: Command): void {
  for (const command of program.commands) {
    const examples = HELP_EXAMPLES[command.name()];
    if (examples)
      command.addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
  }
}
