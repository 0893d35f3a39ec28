// The settings' defaults live in one place (src/shared/settings.ts); package.json declares the same ones.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, readSettings, SETTING_KEYS } from '../../src/shared/settings';
import { REPO_ROOT } from '../helpers';

const declared = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).contributes.configuration.properties as Record<string, { default: unknown }>;

describe('settings', () => {
  it('package.json declares every setting with the default of src/shared/settings.ts', () => {
    for (const [field, key] of Object.entries(SETTING_KEYS)) {
      assert.ok(declared[`vesLens.${key}`], `vesLens.${key} is declared`);
      assert.deepEqual(declared[`vesLens.${key}`].default, DEFAULT_SETTINGS[field as keyof typeof DEFAULT_SETTINGS], `vesLens.${key}`);
    }
    assert.deepEqual(Object.keys(declared).sort(), Object.values(SETTING_KEYS).map((k) => `vesLens.${k}`).sort(), 'no setting declared that the code does not read');
  });

  it('reads a configuration, falling back to the default for a wrong value', () => {
    const values: Record<string, unknown> = { timeoutSeconds: 5, maxRows: 'lots', 'codeLens.enabled': false, scales: [1, 10, 0, 2.5], rules: { vl006: 'off', VL001: 'loud' }, 'diagnostics.questionFiles': true };
    assert.deepEqual(readSettings((key) => values[key]), { ...DEFAULT_SETTINGS, timeoutSeconds: 5, codeLensEnabled: false, scales: [1, 10], rules: { VL006: 'off' }, diagnosticsInQuestionFiles: true });
    assert.deepEqual(readSettings(() => undefined), DEFAULT_SETTINGS);
  });
});
