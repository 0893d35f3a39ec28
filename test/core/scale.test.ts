import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/core/db/engines';
import { ScaleError, scaleDatabase, ScaleReport } from '../../src/core/scale/scaleDatabase';
import { defaultCacheDir, scaledCopy } from '../../src/core/scale/scaledCopy';
import { BIRD_DATA, birdDataMissing, makeDatabase, sha256, tempDir } from '../helpers';

const SCHEMA_FILE = path.join(BIRD_DATA, 'schema', 'dev_tables.json');
const birdDb = (id: string) => path.join(BIRD_DATA, 'databases', id, `${id}.sqlite`);
const skipBird = birdDataMissing();

/** Every number the queries return, from one read-only connection per file. */
async function counts(file: string, queries: string[]): Promise<number[]> {
  const db = await openDatabase(file);
  try {
    const out: number[] = [];
    for (const sql of queries) out.push(Number(Object.values((await db.all(sql))[0])[0]));
    return out;
  } finally {
    await db.close();
  }
}

async function column(file: string, sql: string): Promise<unknown[]> {
  const db = await openDatabase(file);
  try {
    return (await db.all(sql)).map((row) => Object.values(row)[0]);
  } finally {
    await db.close();
  }
}

/** Asserts that each query returns `factor` times as much on the copy as on the source. */
async function assertScaled(source: string, copy: string, factor: number, queries: string[]): Promise<void> {
  const [before, afterCounts] = [await counts(source, queries), await counts(copy, queries)];
  queries.forEach((sql, i) => {
    assert.ok(before[i] > 0, `${sql} returns nothing on the source: a vacuous check`);
    assert.equal(afterCounts[i], before[i] * factor, sql);
  });
}

function assertEveryTableScaled(report: ScaleReport): void {
  for (const t of report.tables) assert.equal(t.rowsAfter, t.rowsBefore * report.factor, t.name);
}

const LEAGUE_SQL = `
  CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
  INSERT INTO team VALUES (-5, 'red'), (0, 'blue'), (7, 'green');
  CREATE TABLE player (id INTEGER PRIMARY KEY AUTOINCREMENT, team_id INTEGER REFERENCES team(id), nickname TEXT, height REAL);
  INSERT INTO player (id, team_id, nickname, height) VALUES (1, -5, 'a', 1.8), (2, -5, 'b', 1.7), (3, 0, 'c', NULL), (4, NULL, 'd', 1.9), (5, 7, 'e', 2.0);
  -- a chain: award.player_team -> player.team_id -> team.id
  CREATE TABLE award (player_team INTEGER REFERENCES player(team_id), title TEXT);
  INSERT INTO award VALUES (-5, 'mvp'), (7, 'rookie'), (0, 'fair play');
  -- text keys, one holding '#', one a number stored as text
  CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT);
  INSERT INTO country VALUES ('FR', 'France'), ('42', 'Answerland'), ('A#1', 'Hash'), ('A', 'Plain');
  CREATE TABLE city (name TEXT, country_code TEXT REFERENCES country(code));
  INSERT INTO city VALUES ('Paris', 'FR'), ('Lyon', 'FR'), ('Deep', '42'), ('H', 'A#1'), ('P', 'A'), ('Nowhere', NULL);
  -- an integer column joined to the text key: SQLite compares 42 = '42' as numbers
  CREATE TABLE fan (country_num INTEGER REFERENCES country(code), name TEXT);
  INSERT INTO fan VALUES (42, 'x'), (42, 'y');
  -- a composite key over two foreign keys, WITHOUT ROWID
  CREATE TABLE membership (team_id INTEGER REFERENCES team(id), country_code TEXT REFERENCES country(code), since INTEGER,
                           PRIMARY KEY (team_id, country_code)) WITHOUT ROWID;
  INSERT INTO membership VALUES (-5, 'FR', 2001), (0, 'FR', 2002), (-5, '42', 2003), (7, 'A#1', 2004);
  -- a foreign key only the schema file declares
  CREATE TABLE ticket (ticket_id INTEGER PRIMARY KEY, holder INTEGER, price REAL);
  INSERT INTO ticket VALUES (10, 1, 9.5), (11, 1, 12), (12, 5, 7);
  -- created after loading: a trigger that must not fire while rows are copied
  CREATE TABLE log (what TEXT);
  INSERT INTO log VALUES ('created');
  CREATE INDEX player_team ON player(team_id);
  CREATE VIEW tall AS SELECT * FROM player WHERE height > 1.75;
  CREATE TRIGGER player_log AFTER INSERT ON player BEGIN INSERT INTO log VALUES ('player ' || new.id); END;
`;

/** A dev_tables.json entry for the league database: the ticket -> player key, and one key the database lacks. */
function leagueSchemaFile(dir: string): string {
  const tables = ['team', 'player', 'ticket', 'ghost'];
  const columns: [number, string][] = [
    [-1, '*'],
    [0, 'id'],
    [1, 'id'],
    [2, 'ticket_id'],
    [2, 'holder'],
    [3, 'id'],
  ];
  const file = path.join(dir, 'dev_tables.json');
  const entry = {
    db_id: 'league',
    table_names_original: tables,
    column_names_original: columns,
    primary_keys: [1, 2, 3, 5],
    foreign_keys: [[4, 2]],
  };
  fs.writeFileSync(
    file,
    JSON.stringify([{ db_id: 'other', table_names_original: [], column_names_original: [], primary_keys: [], foreign_keys: [] }, entry]),
  );
  return file;
}

const LEAGUE_JOINS = [
  'SELECT count(*) FROM team t JOIN player p ON p.team_id = t.id',
  'SELECT count(*) FROM award a JOIN player p ON p.team_id = a.player_team',
  'SELECT count(*) FROM award a JOIN team t ON t.id = a.player_team',
  'SELECT count(*) FROM city c JOIN country k ON k.code = c.country_code',
  'SELECT count(*) FROM fan f JOIN country k ON k.code = f.country_num',
  'SELECT count(*) FROM membership m JOIN team t ON t.id = m.team_id JOIN country k ON k.code = m.country_code',
  'SELECT count(*) FROM ticket k JOIN player p ON p.id = k.holder',
  'SELECT count(*) FROM tall',
  "SELECT count(*) FROM player WHERE nickname IN ('a', 'e')",
];

describe('scaleDatabase on a database with every kind of key', () => {
  const dir = tempDir('ves-lens-scale-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const source = path.join(dir, 'league.sqlite');
  const copy = path.join(dir, 'league-x3.sqlite');
  let report: ScaleReport;

  it('multiplies every table, and every key join, exactly 3 times', async () => {
    await makeDatabase(source, LEAGUE_SQL);
    report = await scaleDatabase(source, 3, copy, { schemaFile: leagueSchemaFile(dir) });
    assertEveryTableScaled(report);
    assert.deepEqual(
      report.tables.map((t) => [t.name, t.rowsAfter]),
      [
        ['team', 9],
        ['player', 15],
        ['award', 9],
        ['country', 12],
        ['city', 18],
        ['fan', 6],
        ['membership', 12],
        ['ticket', 9],
        ['log', 3],
      ],
    );
    await assertScaled(source, copy, 3, LEAGUE_JOINS);
    assert.deepEqual(
      await column(copy, "SELECT name FROM sqlite_master WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY name"),
      ['player_log', 'player_team', 'tall'],
    );
    assert.deepEqual(await column(copy, 'PRAGMA integrity_check'), ['ok']);
    assert.equal(report.dbId, 'league');
    assert.ok(report.outputBytes > 0 && report.seconds > 0);
  });

  it('shifts integers by replica × (max − min + 1) over the whole domain, negative keys included', async () => {
    // team.id, player.team_id, award.player_team, membership.team_id: values -5..7, so 13 per replica.
    const domain = report.domains.find((d) => d.columns.includes('team.id'))!;
    assert.deepEqual([...domain.columns].sort(), ['award.player_team', 'membership.team_id', 'player.team_id', 'team.id']);
    assert.equal(domain.kind, 'number');
    assert.equal(domain.width, '13');
    assert.deepEqual(await column(copy, 'SELECT id FROM team ORDER BY id'), [-5, 0, 7, 8, 13, 20, 21, 26, 33]);
    assert.deepEqual(
      await column(copy, "SELECT name FROM team WHERE name LIKE 'red%' ORDER BY name"),
      ['red', 'red#1', 'red#2'],
      'unique text column suffixed',
    );
    assert.deepEqual(await column(copy, 'SELECT count(*) FROM player WHERE team_id IS NULL'), [3], 'NULL stays NULL');
    assert.deepEqual(await column(copy, 'SELECT max(seq) FROM sqlite_sequence'), [15], 'AUTOINCREMENT counter follows the copied ids');
  });

  it('suffixes text keys with a separator no value contains, and shifts numbers stored as text as numbers', async () => {
    const domain = report.domains.find((d) => d.columns.includes('country.code'))!;
    assert.equal(domain.kind, 'number+text');
    assert.equal(domain.separator, '~', "'A#1' holds '#'");
    assert.deepEqual(await column(copy, "SELECT code FROM country WHERE name = 'Answerland' ORDER BY rowid"), ['42', '43', '44']);
    assert.deepEqual(await column(copy, 'SELECT typeof(country_num) FROM fan GROUP BY 1'), ['integer']);
    assert.deepEqual(await column(copy, "SELECT code FROM country WHERE name = 'Hash' ORDER BY rowid"), ['A#1', 'A#1~1', 'A#1~2']);
    assert.deepEqual(await counts(copy, ['SELECT count(DISTINCT code) FROM country']), [12]);
  });

  it('takes keys from the schema file, and notes the ones the database lacks', async () => {
    const ticket = report.tables.find((t) => t.name === 'ticket')!;
    assert.deepEqual(
      ticket.keyColumns.map((k) => k.column),
      ['ticket_id', 'holder'],
    );
    // Per-replica structure: each player still holds the same number of tickets.
    assert.deepEqual(
      await column(copy, 'SELECT max(n) FROM (SELECT count(*) AS n FROM ticket k JOIN player p ON p.id = k.holder GROUP BY p.id)'),
      [2],
    );
    assert.deepEqual(report.notes, ['schema file key ghost.id is not in the database: ignored']);
    assert.deepEqual(await column(copy, 'SELECT count(*) FROM log'), [3], 'the trigger did not fire while loading');

    const without = await scaleDatabase(source, 3, path.join(dir, 'no-schema.sqlite'));
    assert.deepEqual(
      without.tables.find((t) => t.name === 'ticket')!.keyColumns.map((k) => k.column),
      ['ticket_id'],
    );
    assert.deepEqual(
      await column(
        without.output,
        'SELECT max(n) FROM (SELECT count(*) AS n FROM ticket k JOIN player p ON p.id = k.holder GROUP BY p.id)',
      ),
      [6],
    );
  });

  it('copies with factor 1, and keeps the text encoding', async () => {
    const utf16 = await makeDatabase(path.join(dir, 'utf16.sqlite'), `PRAGMA encoding = 'UTF-16le'; ${LEAGUE_SQL}`);
    const one = await scaleDatabase(utf16, 1, path.join(dir, 'utf16-x1.sqlite'));
    assertEveryTableScaled(one);
    assert.deepEqual(await column(one.output, 'PRAGMA encoding'), ['UTF-16le']);
    assert.deepEqual(await column(one.output, 'SELECT id FROM team ORDER BY id'), [-5, 0, 7]);
  });

  it('recomputes planner statistics for the copy when the source has them', async () => {
    const analyzed = await makeDatabase(path.join(dir, 'analyzed.sqlite'), `${LEAGUE_SQL}; ANALYZE;`);
    const result = await scaleDatabase(analyzed, 4, path.join(dir, 'analyzed-x4.sqlite'));
    assert.deepEqual(
      await column(result.output, "SELECT stat FROM sqlite_stat1 WHERE idx = 'player_team'"),
      ['20 2'],
      '4 × 5 rows; about 2 per team, as in the source (team ids are shifted)',
    );
  });

  it('reads a source whose path holds URI characters (# ? %)', async () => {
    const odd = path.join(dir, 'a #1?%20 b');
    fs.mkdirSync(odd);
    const file = path.join(odd, 'odd%name.sqlite');
    fs.copyFileSync(source, file);
    const result = await scaleDatabase(file, 2, path.join(odd, 'copy.sqlite'));
    assertEveryTableScaled(result);
  });

  it('refills virtual tables unshifted, and leaves out (with a note) a unique index on an expression', async () => {
    const fts = await makeDatabase(
      path.join(dir, 'fts.sqlite'),
      `CREATE TABLE doc (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO doc VALUES (1, 'hello world'), (2, 'bye');
       CREATE VIRTUAL TABLE ft USING fts5(body); INSERT INTO ft (body) SELECT body FROM doc;
       CREATE UNIQUE INDEX doc_lower ON doc (lower(body)); CREATE VIEW hello AS SELECT * FROM ft WHERE ft MATCH 'hello';`,
    );
    const result = await scaleDatabase(fts, 3, path.join(dir, 'fts-x3.sqlite'));
    assert.deepEqual(
      result.tables.map((t) => [t.name, t.rowsAfter]),
      [
        ['doc', 6],
        ['ft', 6],
      ],
      'shadow tables are not copied as tables',
    );
    assert.deepEqual(
      await counts(result.output, ['SELECT count(*) FROM hello', "SELECT count(*) FROM sqlite_master WHERE name = 'doc_lower'"]),
      [3, 0],
    );
    assert.deepEqual(await column(result.output, 'PRAGMA integrity_check'), ['ok']);
    assert.match(result.notes.join('\n'), /unique index doc_lower not created/);
  });

  it('refuses keys whose replicas would not fit in 64-bit integers', async () => {
    const big = await makeDatabase(
      path.join(dir, 'big.sqlite'),
      'CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (-4000000000000000000), (4000000000000000000);',
    );
    await assert.rejects(
      scaleDatabase(big, 2, path.join(dir, 'big-x2.sqlite')),
      (e: Error) => e instanceof ScaleError && /do not fit in 64-bit/.test(e.message),
    );
  });

  it('leaves nothing at the output path when the build fails half-way', async () => {
    const checked = await makeDatabase(
      path.join(dir, 'checked.sqlite'),
      'CREATE TABLE t (id INTEGER PRIMARY KEY CHECK (id < 100)); INSERT INTO t VALUES (1), (60);',
    );
    const folder = path.join(dir, 'failed');
    fs.mkdirSync(folder);
    await assert.rejects(
      scaleDatabase(checked, 3, path.join(folder, 'out.sqlite')),
      (e: Error) => e instanceof ScaleError && /CHECK constraint failed/.test(e.message),
    );
    assert.deepEqual(fs.readdirSync(folder), []);
  });
});

describe('scaleDatabase refuses what it must not do', () => {
  const dir = tempDir('ves-lens-scale-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const refused = (pattern: RegExp) => (e: Error) => e instanceof ScaleError && pattern.test(e.message);

  it('never writes over its source, however the path is spelled', async () => {
    const source = await makeDatabase(path.join(dir, 'db.sqlite'), LEAGUE_SQL);
    fs.symlinkSync(source, path.join(dir, 'link.sqlite'));
    for (const out of [source, path.join(dir, '.', '..', path.basename(dir), 'db.sqlite'), path.join(dir, 'link.sqlite')]) {
      await assert.rejects(scaleDatabase(source, 2, out, { overwrite: true }), refused(/would replace its source/), out);
    }
  });

  it('refuses an existing output unless asked to overwrite, a bad factor, a missing source', async () => {
    const source = path.join(dir, 'db.sqlite');
    const existing = path.join(dir, 'existing.sqlite');
    fs.writeFileSync(existing, 'keep me');
    await assert.rejects(scaleDatabase(source, 2, existing), refused(/output exists/));
    assert.equal(fs.readFileSync(existing, 'utf8'), 'keep me');
    assertEveryTableScaled(await scaleDatabase(source, 2, existing, { overwrite: true }));
    for (const factor of [0, -1, 2.5, NaN])
      await assert.rejects(scaleDatabase(source, factor, path.join(dir, 'f.sqlite')), refused(/integer of at least 1/));
    await assert.rejects(
      scaleDatabase(path.join(dir, 'missing.sqlite'), 2, path.join(dir, 'm.sqlite')),
      refused(/missing\.sqlite: file not found/),
    );
  });
});

describe('scaleDatabase on the real BIRD databases', { skip: skipBird }, () => {
  const dir = tempDir('ves-lens-scale-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const JOINS: Record<string, string[]> = {
    superhero: [
      'SELECT count(*) FROM superhero s JOIN hero_power hp ON hp.hero_id = s.id',
      'SELECT count(*) FROM superhero s JOIN hero_power hp ON hp.hero_id = s.id JOIN superpower p ON p.id = hp.power_id',
      'SELECT count(*) FROM superhero s JOIN colour c ON c.id = s.eye_colour_id',
      'SELECT count(*) FROM superhero WHERE height_cm > 200',
    ],
    toxicology: [
      'SELECT count(*) FROM atom a JOIN connected c ON c.atom_id = a.atom_id',
      'SELECT count(*) FROM connected c JOIN bond b ON b.bond_id = c.bond_id JOIN atom a ON a.atom_id = c.atom_id2',
      'SELECT count(*) FROM molecule m JOIN atom a ON a.molecule_id = m.molecule_id',
      "SELECT count(*) FROM atom WHERE element = 'cl'",
    ],
    student_club: [
      'SELECT count(*) FROM member m JOIN attendance a ON a.link_to_member = m.member_id JOIN event e ON e.event_id = a.link_to_event',
      'SELECT count(*) FROM member m JOIN zip_code z ON z.zip_code = m.zip',
      'SELECT count(*) FROM expense x JOIN budget b ON b.budget_id = x.link_to_budget',
    ],
  };

  for (const [dbId, joins] of Object.entries(JOINS)) {
    it(`${dbId} ×3: every table, every key join (integer and text keys) and every filter ×3`, async () => {
      const source = birdDb(dbId);
      const report = await scaleDatabase(source, 3, path.join(dir, `${dbId}.sqlite`), { schemaFile: SCHEMA_FILE });
      assertEveryTableScaled(report);
      for (const t of report.tables) assert.deepEqual(await counts(report.output, [`SELECT count(*) FROM "${t.name}"`]), [t.rowsAfter]);
      await assertScaled(source, report.output, 3, joins);
      // Dangling references stay dangling, once per replica: no replica's key points into another replica.
      const violations = async (file: string) => (await column(file, 'PRAGMA foreign_key_check')).length;
      assert.equal(await violations(report.output), 3 * (await violations(source)));
      assert.deepEqual(report.notes, []);
    });
  }

  it('shifts foreign keys that only dev_tables.json declares (superhero without any declared key)', async () => {
    // CREATE TABLE ... AS SELECT drops every constraint: no primary key, no foreign key is left in the file.
    const bare = path.join(dir, 'bare', 'superhero.sqlite');
    const original = path.join(dir, 'original.sqlite');
    fs.copyFileSync(birdDb('superhero'), original); // attached by a writable fixture connection: never the shared file
    const tables = ['superhero', 'hero_power', 'superpower', 'colour'];
    await makeDatabase(bare, `ATTACH '${original}' AS s; ${tables.map((t) => `CREATE TABLE ${t} AS SELECT * FROM s.${t};`).join(' ')}`);
    const join = 'SELECT count(*) FROM superhero s JOIN hero_power hp ON hp.hero_id = s.id JOIN superpower p ON p.id = hp.power_id';
    const perHero = 'SELECT max(n) FROM (SELECT count(*) AS n FROM superhero s JOIN hero_power hp ON hp.hero_id = s.id GROUP BY s.id)';

    const withSchema = await scaleDatabase(bare, 3, path.join(dir, 'bare', 'with.sqlite'), { schemaFile: SCHEMA_FILE });
    assert.deepEqual(
      withSchema.tables.find((t) => t.name === 'hero_power')!.keyColumns.map((k) => k.column),
      ['hero_id', 'power_id'],
    );
    await assertScaled(bare, withSchema.output, 3, [join]);
    assert.deepEqual(await counts(withSchema.output, [perHero]), await counts(bare, [perHero]));
    assert.match(withSchema.notes.join('\n'), /schema file key alignment\.id is not in the database/);

    const withoutSchema = await scaleDatabase(bare, 3, path.join(dir, 'bare', 'without.sqlite'));
    const [base, unshifted] = [await counts(bare, [join]), await counts(withoutSchema.output, [join])];
    assert.equal(unshifted[0], base[0] * 27, 'without keys every replica joins every replica');
  });

  it('never touches the source: same bytes, same mtime, no journal beside it', async () => {
    const folder = path.join(dir, 'source');
    fs.mkdirSync(folder);
    const source = path.join(folder, 'superhero.sqlite');
    fs.copyFileSync(birdDb('superhero'), source);
    fs.chmodSync(source, 0o644); // writable, so that a write would be possible
    const past = new Date('2024-01-02T03:04:05Z');
    fs.utimesSync(source, past, past);
    const [hash, mtime] = [sha256(source), fs.statSync(source).mtimeMs];
    await scaleDatabase(source, 2, path.join(dir, 'superhero-x2.sqlite'), { schemaFile: SCHEMA_FILE });
    assert.equal(sha256(source), hash);
    assert.equal(fs.statSync(source).mtimeMs, mtime);
    assert.deepEqual(fs.readdirSync(folder), ['superhero.sqlite'], 'no -journal, -wal or -shm file');
  });
});

describe('scaledCopy (the cache)', () => {
  const dir = tempDir('ves-lens-scale-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('builds once, reuses the copy, and rebuilds when the source changes', async () => {
    const source = await makeDatabase(path.join(dir, 'league.sqlite'), LEAGUE_SQL);
    const cacheDir = path.join(dir, 'cache');
    assert.equal(await scaledCopy(source, 1, { cacheDir }), source, 'factor 1 is the source itself');
    assert.ok(!fs.existsSync(cacheDir));

    // Two concurrent callers share one build.
    const [first, concurrent] = await Promise.all([scaledCopy(source, 3, { cacheDir }), scaledCopy(source, 3, { cacheDir })]);
    assert.equal(first, concurrent);
    assert.deepEqual(fs.readdirSync(cacheDir), [path.basename(first)], 'one copy, no temporary file left');
    assert.deepEqual(await counts(first, ['SELECT count(*) FROM player']), [15]);
    const built = fs.statSync(first);

    const again = await scaledCopy(source, 3, { cacheDir });
    assert.equal(again, first);
    const reused = fs.statSync(again);
    assert.equal(reused.mtimeMs, built.mtimeMs, 'not rebuilt');
    assert.equal(reused.ino, built.ino);

    const other = await scaledCopy(source, 2, { cacheDir });
    assert.notEqual(other, first);
    const schemaFile = leagueSchemaFile(dir);
    assert.notEqual(await scaledCopy(source, 3, { cacheDir, schemaFile }), first, 'the schema entry is part of the key');

    const later = new Date(Date.now() + 5000);
    fs.utimesSync(source, later, later);
    const rebuilt = await scaledCopy(source, 3, { cacheDir });
    assert.notEqual(rebuilt, first, 'a changed source gets a new copy');
  });

  it('keeps copies in $VES_LENS_CACHE, else in the system temp folder', () => {
    const saved = process.env.VES_LENS_CACHE;
    try {
      process.env.VES_LENS_CACHE = path.join(dir, 'env-cache');
      assert.equal(defaultCacheDir(), path.join(dir, 'env-cache'));
      delete process.env.VES_LENS_CACHE;
      assert.match(defaultCacheDir(), /ves-lens-scaled$/);
    } finally {
      if (saved === undefined) delete process.env.VES_LENS_CACHE;
      else process.env.VES_LENS_CACHE = saved;
    }
  });
});
