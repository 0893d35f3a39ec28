// The gold and predicted SQL of the shared mini-dev data, grouped by database (only the databases present).
import * as fs from 'fs';
import * as path from 'path';
import { loadPredictions } from '../src/core/bird/predictions';
import { loadQuestions } from '../src/core/bird/questions';
import { ConnectionCache, OpenDatabase } from '../src/core/db/connectionCache';

export const DATA = path.resolve(process.env.VES_LENS_BIRD_DATA ?? path.join(__dirname, '..', '..', 'shared', 'data', 'bird-minidev'));

export interface SharedSql {
  dbId: string;
  dbPath: string;
  source: string; // gold | prediction file
  questionId: number | string;
  sql: string;
}

export function sharedSql(): SharedSql[] {
  const questions = loadQuestions(path.join(DATA, 'questions', 'mini_dev_sqlite.v1-2024.json')).questions;
  const dir = path.join(DATA, 'predictions', 'minidev-official');
  const predictionFiles = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => loadPredictions(path.join(dir, f)));
  const out: SharedSql[] = [];
  const seen = new Set<string>();
  for (const q of questions) {
    const dbPath = path.join(DATA, 'databases', q.dbId, `${q.dbId}.sqlite`);
    if (!fs.existsSync(dbPath)) continue;
    const candidates = [
      { source: 'gold', sql: q.sql ?? '' },
      ...predictionFiles.map((p) => ({ source: path.basename(p.file), sql: p.predictions[q.index]?.sql ?? '' })),
    ];
    for (const { source, sql } of candidates) {
      const key = `${q.dbId}\u0000${sql.trim()}`;
      if (!sql.trim() || seen.has(key)) continue;
      seen.add(key);
      out.push({ dbId: q.dbId, dbPath, source, questionId: q.questionId, sql });
    }
  }
  return out;
}

/** One open connection and schema per database, opened on first use (the engine's connection cache). */
export class DatabaseCache {
  private readonly connections = ConnectionCache.withSchema();
  private readonly opened = new Set<string>();

  async get(item: SharedSql): Promise<OpenDatabase> {
    const entry = await this.connections.open(item.dbPath);
    this.opened.add(item.dbId);
    return entry;
  }

  ids(): string[] {
    return [...this.opened].sort();
  }

  closeAll(): Promise<void> {
    return this.connections.closeAll();
  }
}

// The machine facts line every report starts with, shared with the .mjs benchmarks.
export { machineLine } from './machine.cjs';
