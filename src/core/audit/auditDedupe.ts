/**
 * One finding per rule and place in a gold. The hint rules can propose the same rewrite for one place more than
 * once (an alternative form, a statement read twice); the audit keeps one, the measured one, so a question never
 * lists a rule twice for one place or counts its speed-up twice in its ranking. A rule that fires at two places
 * (two EXISTS subqueries) is two findings in the rewrites column, but one reason in the ranking: its best gain.
 */

/** What deduplication reads of a rewrite (goldAudit.ts's AuditRewrite; declared here so the two files form no circle). */
export interface PlacedRewrite {
  rule: string;
  sql: string;
  status: string;
  gain?: { ratio: number };
  at?: { start: number; end: number };
}

const placeKey = (r: PlacedRewrite) => `${r.rule}@${r.at ? `${r.at.start}-${r.at.end}` : r.sql}`;

/** How much a rewrite's entry says: measured with a gain, then measured, then only proposed. */
const evidence = (r: PlacedRewrite) => (r.gain ? 2 : r.status !== 'not-verified' ? 1 : 0);

/** The rewrites with one per rule and place, in their first order; of duplicates the measured one (the larger gain) stays. */
export function dedupeRewrites<Rewrite extends PlacedRewrite>(rewrites: readonly Rewrite[]): Rewrite[] {
  const kept = new Map<string, Rewrite>();
  for (const rewrite of rewrites) {
    const key = placeKey(rewrite);
    const earlier = kept.get(key);
    const better =
      !earlier ||
      evidence(rewrite) > evidence(earlier) ||
      (evidence(rewrite) === evidence(earlier) && (rewrite.gain?.ratio ?? 0) > (earlier.gain?.ratio ?? 0));
    if (better) kept.set(key, rewrite);
  }
  const chosen = new Set(kept.values());
  return rewrites.filter((r) => chosen.has(r));
}

/** Per rule, the rewrite with the largest measured gain and how many places the rule was measured faster at. */
export function bestPerRule<Rewrite extends PlacedRewrite>(rewrites: readonly Rewrite[]): { best: Rewrite; places: number }[] {
  const byRule = new Map<string, Rewrite[]>();
  for (const r of rewrites) byRule.set(r.rule, [...(byRule.get(r.rule) ?? []), r]);
  return [...byRule.values()].map((list) => ({
    best: list.reduce((a, b) => ((b.gain?.ratio ?? 0) > (a.gain?.ratio ?? 0) ? b : a)),
    places: list.length,
  }));
}
