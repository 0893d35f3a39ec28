// Issue 30: the gold the editor offers for the engine it switches to (src/app/goldForEngine.ts), on mini-dev's real
// gold files, which sit in one folder: mini_dev_sqlite_gold, mini_dev_postgresql_gold and mini_dev_mysql_gold.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { goldDialect, goldLabel, goldMismatch, goldsBeside } from '../../src/app/goldForEngine';
import { BIRD_DATA, birdDataMissing, tempDir } from '../helpers';

const QUESTIONS = path.join(BIRD_DATA, 'questions');
const SQLITE_GOLD = path.join(QUESTIONS, 'mini_dev_sqlite_gold.v1-2024.sql');
const POSTGRES_GOLD = path.join(QUESTIONS, 'mini_dev_postgresql_gold.sql');
const MYSQL_GOLD = path.join(QUESTIONS, 'mini_dev_mysql_gold.sql');

describe('the gold for the engine (issue 30)', { skip: birdDataMissing() }, () => {
  it("reads each official gold's dialect", () => {
    assert.equal(goldDialect(SQLITE_GOLD), 'sqlite');
    assert.equal(goldDialect(POSTGRES_GOLD), 'postgres');
    assert.equal(goldDialect(MYSQL_GOLD), 'mysql');
  });

  it('finds the gold of the engine beside the attached one, and says the mismatch with it', () => {
    assert.deepEqual(goldsBeside(SQLITE_GOLD, 'postgres'), [POSTGRES_GOLD]);
    assert.deepEqual(goldsBeside(SQLITE_GOLD, 'mysql'), [MYSQL_GOLD]);
    assert.ok(goldsBeside(POSTGRES_GOLD, 'sqlite').includes(SQLITE_GOLD));
    const mismatch = goldMismatch(SQLITE_GOLD, 'postgres')!;
    assert.equal(mismatch.dialect, 'sqlite');
    assert.deepEqual(mismatch.fitting, [POSTGRES_GOLD]);
    assert.match(
      mismatch.message,
      /^the attached gold mini_dev_sqlite_gold\.v1-2024\.sql reads as SQLite SQL, but vesLens\.engine is postgres: .*; mini_dev_postgresql_gold\.sql beside it reads as PostgreSQL SQL$/,
    );
    assert.equal(goldMismatch(POSTGRES_GOLD, 'postgres'), undefined, 'the gold of the engine fits');
    assert.equal(goldMismatch(SQLITE_GOLD, 'sqlite'), undefined);
    assert.equal(goldMismatch(undefined, 'postgres'), undefined, "the questions' own SQL: nothing to read");
  });

  it('says clearly when no gold of the engine is beside it', () => {
    const dir = tempDir();
    const alone = path.join(dir, 'my_gold.sql');
    fs.copyFileSync(MYSQL_GOLD, alone);
    const mismatch = goldMismatch(alone, 'sqlite')!;
    assert.deepEqual(mismatch.fitting, []);
    assert.match(
      mismatch.message,
      /reads as MySQL SQL, but vesLens\.engine is sqlite: .*; no SQLite gold was found beside it: attach one, or set vesLens\.engine to mysql$/,
    );
  });

  it('names the gold in use with its dialect', () => {
    assert.equal(goldLabel(POSTGRES_GOLD), 'gold mini_dev_postgresql_gold.sql (PostgreSQL)');
    assert.equal(goldLabel(undefined), "gold: the questions' SQL");
  });
});
