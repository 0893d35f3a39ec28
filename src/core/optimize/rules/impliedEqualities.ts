import { resolveColumnAt } from '../../sql/scope';
import { columnRefAt, ColumnRef } from '../../hints/columnReferences';
import { onConditions, outerQuery, Span, splitEquality } from './subqueryParts';
import { splitAnd } from './preAggregateFanOut';
import { RewriteRule } from './types';

/**
 * VL024: `a.x = b.y AND b.y = c.z` implies `a.x = c.z`, but SQLite's planner does not infer it: joined through
 * b, it may read a and c with no condition between them (a lookup by another column, or a scan per row). The
 * implied equalities, written out, give it the join it needs. Proof conditions (docs/rules/VL024.md): the
 * equalities are AND-ed conditions of inner joins or the WHERE (not under OR, not of an outer join), between
 * columns of the same declared type, in a database whose tables declare no COLLATE (then `=` compares them
 * alike, and equality is transitive); rows where any of them is NULL fail the written equalities already.
 */
export const impliedEqualities: RewriteRule = {
  id: 'VL024',
  title: 'join equalities the planner does not infer, written out',
  rewrite(context) {
    const { tokens, text, schema } = context;
    if (!schema || [...schema.tables.values()].some((t) => /\bCOLLATE\b/i.test(t.sql))) return [];
    const outer = outerQuery(tokens);
    if (!outer?.conjuncts) return [];
    if (tokens.slice(outer.clauses.from, outer.fromEnd).some((t) => /^(LEFT|RIGHT|FULL|NATURAL)$/i.test(t.text))) return [];
    const conditions: Span[] = [
      ...onConditions(tokens, outer.clauses.from!, outer.fromEnd).flatMap((on) => splitAnd(context, on)),
      ...outer.conjuncts,
    ];
    // Column-to-column equalities, as union-find classes of "qualifier.column" keys.
    const parent = new Map<string, string>();
    const find = (k: string): string => {
      while (parent.get(k) !== k) k = parent.get(k)!;
      return k;
    };
    const written = new Map<string, string>();
    const typeOf = new Map<string, string>();
    const direct = new Set<string>();
    for (const condition of conditions) {
      const sides = splitEquality(tokens, condition);
      if (!sides) continue;
      const refs = sides.map((side) => {
        const ref = columnRefAt(tokens, side.first, text);
        return ref && ref.last === side.last && ref.qualifier !== undefined ? ref : undefined;
      });
      if (!refs[0] || !refs[1]) continue;
      const keys = refs.map((ref) => keyOf(ref!));
      if (keys[0] === keys[1]) continue;
      let typesKnown = true;
      for (const ref of refs as ColumnRef[]) {
        const resolved = resolveColumnAt(schema, tokens, ref.first, ref.qualifier, ref.column);
        if (!resolved) typesKnown = false;
        else typeOf.set(keyOf(ref), (resolved.column.type ?? '').trim().toUpperCase());
        written.set(keyOf(ref), ref.text);
      }
      if (!typesKnown) continue;
      for (const k of keys) if (!parent.has(k)) parent.set(k, k);
      parent.set(find(keys[0]), find(keys[1]));
      direct.add(pairKey(keys[0], keys[1]));
    }
    const classes = new Map<string, string[]>();
    for (const k of parent.keys()) classes.set(find(k), [...(classes.get(find(k)) ?? []), k]);
    const added: string[] = [];
    for (const members of classes.values()) {
      if (members.length < 3 || new Set(members.map((m) => typeOf.get(m))).size !== 1) continue;
      for (let i = 0; i < members.length; i++)
        for (let j = i + 1; j < members.length; j++)
          if (!direct.has(pairKey(members[i], members[j]))) added.push(`${written.get(members[i])} = ${written.get(members[j])}`);
    }
    if (!added.length) return [];
    const insertAt = outer.clauses.where === undefined ? tokens[outer.fromEnd - 1].end : tokens[outer.whereEnd! - 1].end;
    const clause = outer.clauses.where === undefined ? ` WHERE ${added.join(' AND ')}` : ` AND ${added.join(' AND ')}`;
    return [
      {
        sql: text.slice(0, insertAt) + clause + text.slice(insertAt),
        rule: 'VL024',
        note: `implied join equalities written out: ${added.join(', ')}`,
      },
    ];
  },
};

const keyOf = (ref: ColumnRef) => `${ref.qualifier!.toLowerCase()}.${ref.column.toLowerCase()}`;
const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);
