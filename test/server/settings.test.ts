// The settings' defaults live in one place (src/shared/settings.ts); package.json declares the same ones.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  DEFAULT_JUDGE_SETTINGS,
  DEFAULT_SETTINGS,
  JUDGE_SETTING_KEYS,
  readJudgeSettings,
  readSettings,
  SETTING_KEYS,
} from '../../src/shared/settings';
import { TECHNIQUES } from '../../src/core/results/sqlmorph/types';
import { EMBEDDING_PROVIDER_KINDS } from '../../src/core/embeddings/createProvider';
import { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_EMBEDDINGS_URL } from '../../src/core/embeddings/openaiCompatible';
import { OFFICIAL_ITERATIONS } from '../../src/core/timing/official';
import { REPO_ROOT } from '../helpers';

const declared = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).contributes.configuration.properties as Record<
  string,
  { default: unknown }
>;

describe('settings', () => {
  it('package.json declares every setting with the default of src/shared/settings.ts', () => {
    for (const [field, key] of Object.entries(SETTING_KEYS)) {
      assert.ok(declared[`vesLens.${key}`], `vesLens.${key} is declared`);
      assert.deepEqual(declared[`vesLens.${key}`].default, DEFAULT_SETTINGS[field as keyof typeof DEFAULT_SETTINGS], `vesLens.${key}`);
    }
    // The judge's settings are read by the client only (it picks the model for each Judge request).
    for (const [field, key] of Object.entries(JUDGE_SETTING_KEYS)) {
      assert.ok(declared[`vesLens.${key}`], `vesLens.${key} is declared`);
      assert.deepEqual(
        declared[`vesLens.${key}`].default,
        DEFAULT_JUDGE_SETTINGS[field as keyof typeof DEFAULT_JUDGE_SETTINGS],
        `vesLens.${key}`,
      );
    }
    const read = [...Object.values(SETTING_KEYS), ...Object.values(JUDGE_SETTING_KEYS)].map((k) => `vesLens.${k}`);
    assert.deepEqual(Object.keys(declared).sort(), read.sort(), 'no setting declared that the code does not read');
  });

  it('reads a configuration, falling back to the default for a wrong value', () => {
    const values: Record<string, unknown> = {
      timeoutSeconds: 5,
      maxRows: 'lots',
      'codeLens.enabled': false,
      scales: [1, 10, 0, 2.5],
      rules: { vl006: 'off', VL001: 'loud' },
      'diagnostics.questionFiles': true,
    };
    assert.deepEqual(
      readSettings((key) => values[key]),
      {
        ...DEFAULT_SETTINGS,
        timeoutSeconds: 5,
        codeLensEnabled: false,
        scales: [1, 10],
        rules: { VL006: 'off' },
        diagnosticsInQuestionFiles: true,
      },
    );
    assert.deepEqual(
      readSettings(() => undefined),
      DEFAULT_SETTINGS,
    );
  });

  it("reads the judge's settings, falling back to the default for a wrong value", () => {
    const values: Record<string, unknown> = {
      'judge.provider': 'openai',
      'judge.url': ' http://127.0.0.1:11434/v1 ',
      'judge.model': 'qwen',
      'judge.method': 'prover-only',
      'judge.family': 42,
    };
    assert.deepEqual(
      readJudgeSettings((key) => values[key]),
      { ...DEFAULT_JUDGE_SETTINGS, provider: 'openai', url: 'http://127.0.0.1:11434/v1', model: 'qwen', method: 'prover-only' },
    );
    assert.deepEqual(
      readJudgeSettings((key) => ({ 'judge.provider': 'copilot', 'judge.method': 'vote', 'judge.url': '' })[key]),
      DEFAULT_JUDGE_SETTINGS,
    );
  });

  it("reads SQLMorph's technique and embedding settings; package.json offers exactly core's techniques and defaults", () => {
    const techniques = declared['vesLens.techniques'] as unknown as { items: { enum: string[] } };
    assert.deepEqual(techniques.items.enum, ['all', ...TECHNIQUES]);
    assert.deepEqual(
      [DEFAULT_SETTINGS.embeddingsUrl, DEFAULT_SETTINGS.embeddingsModel],
      [DEFAULT_EMBEDDINGS_URL, DEFAULT_EMBEDDINGS_MODEL],
    );
    assert.deepEqual(
      (declared['vesLens.embeddings.provider'] as unknown as { enum: string[] }).enum.sort(),
      [...EMBEDDING_PROVIDER_KINDS].sort(),
    );
    const values: Record<string, unknown> = {
      techniques: ['no_column_and_partial_cell', 'exact_cell', 'execution_accuracy'],
      penalizeExtraColumns: false,
      'embeddings.provider': 'openai',
      'embeddings.url': ' http://127.0.0.1:11434/v1 ',
      'embeddings.model': '',
    };
    assert.deepEqual(
      readSettings((key) => values[key]),
      {
        ...DEFAULT_SETTINGS,
        techniques: ['no_column_and_partial_cell', 'execution_accuracy'],
        penalizeExtraColumns: false,
        embeddingsProvider: 'openai',
        embeddingsUrl: 'http://127.0.0.1:11434/v1',
      },
    );
    // "all" and "none" written by hand in settings.json; a provider that does not exist falls back to none.
    assert.deepEqual(
      readSettings((key) => ({ techniques: 'none', 'embeddings.provider': 'toString' })[key]),
      { ...DEFAULT_SETTINGS, techniques: [] },
    );
    assert.deepEqual(readSettings((key) => ({ techniques: 'all' })[key]).techniques, ['all']);
  });

  it("reads the timing mode and iterations (the CLI's --timing and --iterations), defaulting to fast and the official 100", () => {
    assert.equal(DEFAULT_SETTINGS.timingIterations, OFFICIAL_ITERATIONS);
    assert.deepEqual((declared['vesLens.timing.mode'] as unknown as { enum: string[] }).enum, ['fast', 'official']);
    const values: Record<string, unknown> = { 'timing.mode': 'official', 'timing.iterations': 20.7 };
    assert.deepEqual(
      readSettings((key) => values[key]),
      { ...DEFAULT_SETTINGS, timingMode: 'official', timingIterations: 20 },
    );
    const wrong: Record<string, unknown> = { 'timing.mode': 'slow', 'timing.iterations': 0 };
    assert.deepEqual(
      readSettings((key) => wrong[key]),
      DEFAULT_SETTINGS,
    );
  });
});
