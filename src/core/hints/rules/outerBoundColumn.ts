import { TableInfo } from '../../db/schema';
import { depths } from '../../sql/clauses';
import { wordIs } from '../../sql/keywords';
import { identifierName } from '../../sql/lexer';
import { allFromItems, cteNames, fromClauses, itemName, itemTable, resolveColumnIn, selectScope, visibleScopes } from '../../sql/scope';
import { columnRefAt } from '../columnReferences';
import { tokenRange } from '../edits';
import { Hint, HintRule } from '../types';

/**
 * VL011: an unqualified column in a subquery that none of the subquery's tables has, which SQLite silently reads
 * from the outer query instead of refusing it. Written on purpose it is a correlation better made explicit; more
 * often a model meant a column of a table the subquery lacks (mini-dev q260: `element` inside a subquery over
 * connected, bond and molecule is atom's, from outside). Either way the subquery is now correlated: it runs again
 * for every outer row, which made three of the slowest statements on ×10 copies slow (issue 34). Needs the schema.
 */
export const outerBoundColumn: HintRule = {
  id: 'VL011',
  title: "subquery column read from the outer query (not a column of the subquery's tables)",
  kind: 'correctness',
  check(context) {
    const { tokens, text, schema } = context;
    // Only a statement with a subquery can bind a name outwards (most have none: nothing more to do).
    if (!schema || !tokens.some((t, k) => t.text === '(' && wordIs(tokens[k + 1], 'SELECT'))) return [];
    const depth = depths(tokens);
    const ctes = cteNames(tokens);
    // Table names and aliases: a FROM item's own name is no column reference.
    const named = new Set(allFromItems(tokens).flatMap((item) => [item.table, item.alias].flatMap((n) => (n ? [n.toLowerCase()] : []))));
    const fromRanges = fromClauses(tokens);
    const hints: Omit<Hint, 'rule' | 'title' | 'kind'>[] = [];
    const seen = new Set<string>();
    /**
     * What a subquery's names can read, once per subquery: undefined where the rule cannot judge (a CTE body or a
     * FROM subquery, which cannot see the query around them; an inner item whose columns are unknown).
     */
    const scopeFacts = (scope: { start: number; end: number }) => {
      const open = openingParen(depth, tokens, scope.start);
      if (open < 0) return undefined;
      const before = tokens[open - 1];
      if (wordIs(before, 'AS', 'MATERIALIZED', 'FROM', 'JOIN')) return undefined;
      if (before?.text === ',' && fromRanges.some(({ from, end }) => open > from && open < end)) return undefined;
      const [inner, ...outer] = visibleScopes(tokens, scope.start);
      if (!inner.length || !outer.length) return undefined;
      const innerTables = inner.map((item) => itemTable(schema, item, ctes));
      if (innerTables.some((table) => !table)) return undefined;
      const aliases = new Set<string>();
      for (let k = scope.start + 1; k < scope.end; k++)
        if (wordIs(tokens[k - 1], 'AS')) aliases.add(identifierName(tokens[k].text).toLowerCase());
      return { outer, innerTables: innerTables as TableInfo[], aliases };
    };
    const scopes = new Map<number, ReturnType<typeof scopeFacts>>();
    for (let i = 0; i < tokens.length; i++) {
      if (depth[i] === 0 || wordIs(tokens[i - 1], 'AS', 'COLLATE') || tokens[i - 1]?.text === '.') continue;
      const ref = columnRefAt(tokens, i, text);
      if (!ref) continue;
      i = ref.last;
      const name = ref.column.toLowerCase();
      if (ref.qualifier !== undefined || named.has(name) || ctes.has(name)) continue; // a qualified name says where it reads
      const scope = selectScope(tokens, ref.first);
      if (!scopes.has(scope.start)) scopes.set(scope.start, scopeFacts(scope));
      const facts = scopes.get(scope.start);
      if (!facts) continue;
      const { outer, innerTables } = facts;
      if (innerTables.some((table) => table.columns.some((c) => c.name.toLowerCase() === name))) continue;
      if (facts.aliases.has(name)) continue; // a result column's alias (`COUNT(*) AS n ... ORDER BY n`) is the subquery's own
      const resolved = resolveColumnIn(schema, outer, undefined, ref.column, ctes);
      if (!resolved || seen.has(`${scope.start}:${name}`)) continue;
      seen.add(`${scope.start}:${name}`);
      const outerName = itemName(resolved.item) ?? resolved.table.name;
      const tables = innerTables.map((t) => `\`${t.name}\``).join(', ');
      hints.push({
        message:
          `\`${ref.column}\` is not a column of ${tables}; SQLite reads it from the outer query (\`${outerName}.${resolved.column.name}\`). ` +
          `That makes the subquery correlated: it runs again for every outer row. If the outer column is meant, write ` +
          `\`${outerName}.${resolved.column.name}\`; if not, the subquery lacks the table that has \`${ref.column}\`.`,
        range: tokenRange(tokens, ref.first, ref.last),
      });
    }
    return hints;
  },
};

/** The `(` that opens the subquery whose SELECT starts at token `start` (a compound member's, too); -1 at the top level. */
function openingParen(depth: readonly number[], tokens: readonly { text: string }[], start: number): number {
  let at = start - 1;
  while (at >= 0 && !(tokens[at].text === '(' && depth[at] < depth[start])) at--;
  return at;
}
