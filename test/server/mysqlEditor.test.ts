// The editor on MySQL: vesLens.engine mysql loads the dataset's SQLite files into a local MariaDB server (its copy
// kept in the extension's storage) and scores, explains and lints a MySQL statement there, saying what ran the SQL.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VesLensService } from '../../src/server/service';
import { DEFAULT_SETTINGS } from '../../src/shared/settings';
import { BIRD_DATA, REPO_ROOT, tempDir } from '../helpers';
import { mysqlMissing } from '../mysqlServer';
import { InMemoryDocuments } from './inMemoryDocuments';

describe('the editor on a local MariaDB (service in-process)', { skip: mysqlMissing(), timeout: 300_000 }, () => {
  const storageDir = tempDir('ves-lens-storage-');
  const documents = new InMemoryDocuments();
  const service = new VesLensService({ documents, log: () => undefined, docsRoot: path.join(REPO_ROOT, 'docs', 'rules') });

  before(async () => {
    await service.initialize({
      dataset: {
        questionsFile: path.join(BIRD_DATA, 'questions', 'mini_dev_mysql.json'),
        goldFile: path.join(BIRD_DATA, 'questions', 'mini_dev_mysql_gold.sql'),
        dbRoot: path.join(BIRD_DATA, 'databases'),
      },
      trusted: true,
      settings: { ...DEFAULT_SETTINGS, engine: 'mysql' },
      storageDir,
    });
  });
  after(() => service.dispose());

  it('says MariaDB runs the SQL, loaded from the dataset and kept in the extension storage', () => {
    const summary = service.summary();
    assert.equal(summary.engineError, undefined);
    assert.equal(summary.engine?.engine, 'mysql');
    assert.match(summary.engine?.line ?? '', /^MariaDB 10\.11\.\S+ \(local server, loaded from .*databases, one-database layout\)$/);
    assert.ok(fs.readdirSync(path.join(storageDir, 'mariadb')).length > 0);
  });

  it("scores a MySQL statement against the MySQL gold, explains it, and says MariaDB's own compile error", async () => {
    const sql = "SELECT COUNT(`id`) FROM `superhero` WHERE `height_cm` > 180 AND `superhero_name` <> 'x'";
    const explained = await service.explain({ sql, dbId: 'superhero' });
    assert.ok(explained.plan.nodes.some((node) => node.kind === 'scan'));
    // Question 718's gold is a count; any statement with its result is correct.
    const gold = fs.readFileSync(path.join(BIRD_DATA, 'questions', 'mini_dev_mysql_gold.sql'), 'utf8').split('\n');
    const questions = JSON.parse(fs.readFileSync(path.join(BIRD_DATA, 'questions', 'mini_dev_mysql.json'), 'utf8')) as {
      question_id: number;
      db_id: string;
    }[];
    const index = questions.findIndex((q) => q.db_id === 'superhero');
    const result = await service.score({ sql: gold[index].split('\t')[0], questionId: questions[index].question_id });
    assert.equal(result.outcome, 'correct', result.error ?? '');
    assert.match(result.engine, /MariaDB/);
    const document = documents.open('file:///ws/mysql.sql', 'sql', '-- db: superhero\nSELECT nope FROM superhero;\n');
    const compile = (await service.diagnostics(document)).find((d) => d.code === 'sql-error');
    assert.match(compile?.message ?? '', /^MySQL: Unknown column 'nope'/);
  });
});
