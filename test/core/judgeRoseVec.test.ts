/**
 * The cascade against ROSE's own run: on the ROSE-VEC pairs whose databases are in the shared data (superhero,
 * toxicology, student_club: 77 of 322), our equality rule must send the same pairs to the Refuter alone as
 * ROSE's XOR rule did, and replaying ROSE's recorded Prover and Refuter verdicts (gemini-2.5-pro) through our
 * cascade must give ROSE's scores, pair by pair.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { judgeAll } from '../../src/core/judge/runJudge';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { ScriptedChatModel } from '../fakeChatServer';
import { replayOfRose, ROSE_DATA, roseDataMissing, RoseRow, roseVecPairs } from '../roseData';

describe("the cascade on ROSE-VEC pairs, against ROSE's own run", () => {
  it("takes the branch ROSE took on every pair, and gives ROSE's score when fed ROSE's verdicts", async (t) => {
    const skip = birdDataMissing() || roseDataMissing();
    if (skip) return t.skip(skip);
    const pairs = roseVecPairs();
    assert.equal(pairs.length, 77);
    const rows = new Map<number, RoseRow>(
      JSON.parse(fs.readFileSync(path.join(ROSE_DATA, 'gemini-2.5-pro.ROSE.eval_results.json'), 'utf8')).map((r: RoseRow) => [
        r.question_id,
        r,
      ]),
    );
    const model = new ScriptedChatModel(replayOfRose(pairs, rows));
    const outcomes = await judgeAll(
      pairs.map((p) => ({
        question: p.question,
        evidence: p.evidence,
        dbId: p.db_id,
        dbPath: path.join(BIRD_DATA, 'databases', p.db_id, `${p.db_id}.sqlite`),
        predictedSql: p.predicted_sql,
        goldSql: p.gold_sql,
      })),
      { model, concurrency: 8 },
    );
    let matched = 0;
    pairs.forEach((p, i) => {
      const rose = rows.get(p.question_id)!;
      const ours = outcomes[i];
      assert.equal(ours.error, null, `question ${p.question_id}: ${ours.error}`);
      assert.equal(ours.branch === 'results_match', rose.prover_result === null, `question ${p.question_id}: branch ${ours.branch}`);
      assert.equal(ours.score, rose.score, `question ${p.question_id}`);
      if (ours.branch === 'results_match') matched++;
    });
    assert.equal(matched, 26);
  });
});
