// PostgreSQL for the editor's tests: a throwaway cluster holding the sample superhero database as `ves-lens load`
// builds it, a role that must give a password, and the official PostgreSQL gold of the sample's 52 questions.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LocalCluster, POSTGRES_BIN } from '../../src/core/db/postgres/localCluster';
import { BIRD_DATA, REPO_ROOT } from '../helpers';
import { startLoadedCluster } from '../pgCluster';

export const SAMPLE = path.join(REPO_ROOT, 'sample');
export const SAMPLE_QUESTIONS = path.join(SAMPLE, 'mini_dev_superhero.json');

/** A cluster with database `bird` holding superhero's tables (schema public: the official dump's layout). */
export function startSuperheroCluster(): LocalCluster {
  return startLoadedCluster(SAMPLE);
}

/** Runs SQL as the cluster's superuser (psql over its socket). */
export function asSuperuser(cluster: LocalCluster, sql: string, database = 'bird'): string {
  const run = spawnSync(
    path.join(POSTGRES_BIN, 'psql'),
    ['-h', cluster.socketDir, '-p', String(cluster.port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atc', sql],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

/**
 * A login role that may only read `bird` and must give its password (scram-sha-256 on the socket, while the
 * superuser keeps trust); the URL to reach it as, without the password.
 */
export function passwordRole(cluster: LocalCluster, role: string, password: string): string {
  asSuperuser(
    cluster,
    `CREATE ROLE ${role} LOGIN PASSWORD '${password}'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}; ` +
      `GRANT USAGE ON SCHEMA public TO ${role}`,
  );
  const hba = path.join(path.dirname(cluster.socketDir), 'data', 'pg_hba.conf');
  fs.writeFileSync(hba, `local all ${role} scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
  asSuperuser(cluster, 'SELECT pg_reload_conf()');
  const url = new URL(cluster.url);
  url.username = role;
  return url.toString();
}

/** The official PostgreSQL gold (mini_dev_postgresql_gold.sql) of the sample's questions, in their order; undefined without the shared data. */
export function superheroPostgresGold(folder: string): string | undefined {
  const questionsFile = path.join(BIRD_DATA, 'questions', 'mini_dev_sqlite.v1-2024.json');
  const goldFile = path.join(BIRD_DATA, 'questions', 'mini_dev_postgresql_gold.sql');
  if (!fs.existsSync(questionsFile) || !fs.existsSync(goldFile)) return undefined;
  const all = JSON.parse(fs.readFileSync(questionsFile, 'utf8')) as { question_id: number }[];
  const lines = fs.readFileSync(goldFile, 'utf8').split('\n');
  const lineOf = new Map(all.map((question, i) => [question.question_id, lines[i]]));
  const sample = JSON.parse(fs.readFileSync(SAMPLE_QUESTIONS, 'utf8')) as { question_id: number }[];
  const file = path.join(folder, 'mini_dev_superhero_postgresql_gold.sql');
  fs.writeFileSync(file, `${sample.map((question) => lineOf.get(question.question_id)).join('\n')}\n`);
  return file;
}
