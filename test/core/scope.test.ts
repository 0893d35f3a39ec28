import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ColumnInfo, SchemaInfo, TableInfo } from '../../src/core/db/schema';
import { analyzeSql } from '../../src/core/hints/analyze';
import { mayBeNull, resolveColumn } from '../../src/core/hints/columnReferences';
import { tablesNamed } from '../../src/core/judge/dbInfo';
import { proposeIndexes } from '../../src/core/plan/indexAdvice';
import { significantTokens } from '../../src/core/sql/lexer';
import {
  allFromItems,
  cteNames,
  fromItems,
  outerJoinNullable,
  outputColumns,
  resolveColumnAt,
  tableAliases,
  tablesRead,
} from '../../src/core/sql/scope';
import { hoverText } from '../../src/app/statementHover';

const column = (name: string, facts: Partial<ColumnInfo> = {}): ColumnInfo => ({
  name,
  type: 'TEXT',
  notNull: false,
  primaryKey: false,
  ...facts,
});
const key = (name: string) => column(name, { type: 'INTEGER', notNull: true, primaryKey: true });

function table(name: string, columns: ColumnInfo[]): TableInfo {
  return {
    name,
    columns,
    indexes: [],
    foreignKeys: [],
    rowCount: 10,
    rowidColumn: columns.find((c) => c.primaryKey)?.name,
    withoutRowid: false,
    sql: '',
  };
}

/** A small superhero-like schema: `id` and `name` are in several tables, so an unqualified one is ambiguous. */
const SCHEMA: SchemaInfo = {
  tables: new Map(
    [
      table('superhero', [key('id'), column('superhero_name'), column('publisher_id', { type: 'INTEGER' }), column('name')]),
      table('publisher', [key('id'), column('publisher_name', { notNull: true }), column('name')]),
      table('colour', [key('id'), column('colour')]),
    ].map((t) => [t.name.toLowerCase(), t]),
  ),
  createStatements: [],
};
const TABLES = [...SCHEMA.tables.values()].map((t) => t.name);

/** Resolves the reference whose text starts at the first occurrence of `marker` in `sql`. */
function resolveMarked(sql: string, marker: string) {
  const tokens = significantTokens(sql);
  const offset = sql.indexOf(marker);
  const index = tokens.findIndex((t) => t.start === offset);
  assert.ok(index >= 0, `no token at ${marker}`);
  const qualified = tokens[index + 1]?.text === '.';
  const name = (i: number) => tokens[i].text.replace(/^["`[]|["`\]]$/g, '');
  const resolved = qualified
    ? resolveColumnAt(SCHEMA, tokens, index + 2, name(index), name(index + 2))
    : resolveColumnAt(SCHEMA, tokens, index, undefined, name(index));
  return resolved && `${resolved.table.name}.${resolved.column.name}`;
}

describe('one SQL scope: the cases where the three resolvers used to disagree', () => {
  it('an unqualified column two tables have is ambiguous and resolves to nothing, everywhere', () => {
    const sql = 'SELECT COUNT(name) FROM superhero JOIN publisher ON superhero.publisher_id = publisher.id WHERE name = 1';
    assert.equal(resolveMarked(sql, 'name)'), undefined);
    assert.equal(hoverText(sql, sql.indexOf('name)') + 1, SCHEMA), undefined);
    // Index advice no longer takes the first table that has it.
    const proposals = proposeIndexes(sql, SCHEMA);
    assert.ok(Array.isArray(proposals));
    assert.deepEqual(
      proposals.filter((p) => p.columns.includes('name')),
      [],
    );
    // A column only one of them has resolves.
    assert.equal(resolveMarked(sql.replace('COUNT(name)', 'COUNT(superhero_name)'), 'superhero_name)'), 'superhero.superhero_name');
  });

  it('an unqualified column resolves in its own SELECT first, then in the SELECTs around it', () => {
    const sql = 'SELECT COUNT(id) FROM superhero WHERE publisher_id IN (SELECT id FROM publisher WHERE colour_id = superhero_name)';
    assert.equal(resolveMarked(sql, 'id)'), 'superhero.id');
    assert.equal(resolveMarked(sql, 'id FROM publisher'), 'publisher.id');
    assert.equal(resolveMarked(sql, 'superhero_name)'), 'superhero.superhero_name'); // correlated: the outer table's
    // The VL002 rule sees the same: COUNT(id) counts superhero's never-NULL key.
    assert.deepEqual(
      analyzeSql(sql, { schema: SCHEMA })
        .flatMap((s) => s.hints)
        .filter((h) => h.rule === 'VL002')
        .map((h) => h.rewrite?.text),
      ['COUNT(*)'],
    );
  });

  it('reads `FROM main.t AS T1` as table t with alias T1', () => {
    const sql = 'SELECT T1.superhero_name FROM main.superhero AS T1 JOIN main.publisher p ON T1.publisher_id = p.id';
    assert.deepEqual(
      allFromItems(significantTokens(sql)).map((i) => [i.schema, i.table, i.alias]),
      [
        ['main', 'superhero', 'T1'],
        ['main', 'publisher', 'p'],
      ],
    );
    assert.equal(tableAliases(sql, TABLES).get('t1'), 'superhero');
    assert.equal(tableAliases(sql, TABLES).get('p'), 'publisher');
    assert.deepEqual([...tablesRead(sql, TABLES).values()], ['superhero', 'publisher']);
    assert.equal(resolveMarked(sql, 'T1.superhero_name'), 'superhero.superhero_name');
    assert.deepEqual(tablesNamed(sql, TABLES), ['superhero', 'publisher']);
  });

  it('reads quoted names and compares names case-insensitively', () => {
    const sql = 'SELECT "T1"."Superhero_Name", [c].colour FROM "superhero" AS "T1" JOIN `colour` [c] ON t1.id = C.ID';
    assert.equal(resolveMarked(sql, '"T1"."Superhero_Name"'), 'superhero.superhero_name');
    assert.equal(resolveMarked(sql, '[c].colour'), 'colour.colour');
    assert.equal(resolveMarked(sql, 'C.ID'), 'colour.id');
    assert.equal(tableAliases(sql, TABLES).get('c'), 'colour');
  });

  it('an alias hides its table name, as in SQLite', () => {
    const sql = 'SELECT superhero.id FROM superhero AS T1';
    assert.equal(resolveMarked(sql, 'superhero.id'), undefined);
    assert.equal(resolveMarked('SELECT superhero.id FROM superhero', 'superhero.id'), 'superhero.id');
  });

  it('keyword-named aliases: any name after AS, a bare word only when it is no keyword', () => {
    const items = (sql: string) => allFromItems(significantTokens(sql)).map((i) => i.alias ?? '-');
    assert.deepEqual(items('SELECT 1 FROM superhero AS left JOIN colour AS "order" ON left.id = "order".id'), ['left', 'order']);
    assert.deepEqual(items('SELECT 1 FROM superhero key LEFT JOIN colour WHERE key.id = 1'), ['key', '-']);
    assert.deepEqual(items('SELECT 1 FROM superhero WHERE id = 1 ORDER BY id'), ['-']);
    assert.deepEqual(items('SELECT 1 FROM superhero INDEXED BY x, colour NATURAL JOIN publisher'), ['-', '-', '-']);
    assert.equal(resolveMarked('SELECT left.colour FROM colour AS left', 'left.colour'), 'colour.colour');
    // A table named like a keyword is read only where a FROM item stands: ORDER BY names no table `order`.
    assert.deepEqual(tablesNamed('SELECT a FROM card ORDER BY card_id', ['card', 'order']), ['card']);
  });

  it('LEFT, RIGHT and FULL joins make the outer-joined side nullable', () => {
    const nullable = (sql: string) => allFromItems(significantTokens(sql)).map((i) => i.nullable);
    assert.deepEqual(nullable('SELECT 1 FROM superhero T1 LEFT JOIN publisher T2 ON T1.publisher_id = T2.id JOIN colour c'), [
      false,
      true,
      false,
    ]);
    assert.deepEqual(nullable('SELECT 1 FROM superhero T1 LEFT OUTER JOIN publisher T2 ON 1 RIGHT JOIN colour c ON 1'), [
      true,
      true,
      false,
    ]);
    assert.deepEqual(nullable('SELECT 1 FROM superhero FULL JOIN publisher ON 1'), [true, true]);
    const sql = 'SELECT COUNT(T2.publisher_name) FROM superhero T1 LEFT JOIN publisher T2 ON T1.publisher_id = T2.id';
    const tokens = significantTokens(sql);
    const ref = { first: 2, last: 4, qualifier: 'T2', column: 'publisher_name', text: 'T2.publisher_name' };
    const resolved = resolveColumn({ text: sql, offset: 0, tokens, schema: SCHEMA }, ref)!;
    assert.equal(resolved.item.nullable, true);
    assert.equal(mayBeNull(tokens, ref, resolved), true); // NOT NULL in the schema, NULL through the outer join
    assert.deepEqual([...outerJoinNullable(tokens).names], ['t2']);
  });

  it('a subquery in FROM is an item of its own: its outputs, its alias, its tables read', () => {
    const sql = 'SELECT s.n, superhero_name, id FROM (SELECT COUNT(*) AS n, T.colour c2, id FROM colour T) AS s JOIN superhero ON 1';
    const tokens = significantTokens(sql);
    const from = tokens.findIndex((t) => t.text === 'FROM');
    const [subquery, hero] = fromItems(tokens, from, tokens.length);
    assert.equal(subquery.kind, 'subquery');
    assert.equal(subquery.alias, 's');
    assert.deepEqual(subquery.columns, ['n', 'c2', 'id']);
    assert.equal(hero.table, 'superhero');
    assert.equal(resolveMarked(sql, 'superhero_name,'), 'superhero.superhero_name'); // the subquery has no such output
    assert.equal(resolveMarked(sql, 'id FROM (SELECT'), undefined); // both the subquery and superhero output id
    assert.equal(resolveMarked(sql, 's.n'), undefined); // a subquery's column is no table's
    assert.equal(resolveMarked(sql, 'id FROM colour'), 'colour.id'); // inside, its own FROM
    assert.deepEqual([...tablesRead(sql, TABLES).values()].sort(), ['colour', 'superhero']);
    assert.deepEqual(outputColumns(tokens, 0, tokens.length), ['n', 'superhero_name', 'id']);
    assert.deepEqual(outputColumns(significantTokens('SELECT * FROM colour'), 0, 4), undefined);
  });

  it('a CTE name is not the table it may shadow', () => {
    const sql = 'WITH colour AS (SELECT id FROM superhero), x (a) AS (SELECT 1) SELECT colour FROM colour';
    assert.deepEqual([...cteNames(significantTokens(sql))].sort(), ['colour', 'x']);
    assert.equal(resolveMarked(sql, 'colour FROM colour'), undefined);
    assert.deepEqual([...tablesRead(sql, TABLES).values()], ['superhero']);
  });

  it('hover resolves names within the statement under the cursor', () => {
    const text = 'SELECT T1.colour FROM colour T1;\nSELECT T1.superhero_name FROM superhero T1;';
    assert.match(hoverText(text, text.indexOf('colour FROM') + 1, SCHEMA) ?? '', /\*\*colour\.colour\*\*/);
    assert.match(hoverText(text, text.indexOf('superhero_name') + 1, SCHEMA) ?? '', /\*\*superhero\.superhero_name\*\*/);
  });
});
