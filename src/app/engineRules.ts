import { RunRefused } from './runRefused';

/** What a run asks of its engine beyond scoring: each needs something only some engines give. */
export interface EngineNeeds {
  /** Re-time on scaled copies (--scales). */
  scales?: boolean;
  /** SQLMorph's result-comparison techniques (--techniques). */
  techniques?: boolean;
  /** BIRD-Critic's plan-cost efficiency (--efficiency plan-cost). */
  planCost?: boolean;
}

/**
 * The engine rules, in one place for every face: which engine allows scaled copies, SQLMorph's techniques and
 * plan cost. Throws RunRefused naming the option.
 */
export function checkEngineNeeds(engine: string, needs: EngineNeeds): void {
  if (needs.scales && engine !== 'sqlite') throw new RunRefused('--scales', `scaled copies are SQLite files; not with --engine ${engine}`);
  if (needs.techniques && engine !== 'sqlite')
    throw new RunRefused('--techniques', `SQLMorph's techniques read SQLite's value types; not with --engine ${engine}`);
  if (needs.planCost && engine === 'sqlite')
    throw new RunRefused(
      '--efficiency plan-cost',
      "BIRD-Critic compares PostgreSQL's EXPLAIN (FORMAT JSON) Total Cost, which SQLite's planner does not give; use --engine postgres (on SQLite, --json's plan_cost holds the rule cost and row visits)",
    );
}
