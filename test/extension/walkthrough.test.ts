// The walkthrough's "Attach" step is checked however the dataset gets attached (issue 22, misleading 9): from
// its button, the palette, the first-open offer or a restored workspace, through the context key the
// extension sets whenever a dataset is attached.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers';

describe('walkthrough', () => {
  it('completes the Attach step on the vesLens.datasetAttached context key, which the extension sets', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const attach = manifest.contributes.walkthroughs[0].steps.find((step: { id: string }) => step.id === 'attach');
    assert.ok(attach.completionEvents.includes('onContext:vesLens.datasetAttached'), JSON.stringify(attach.completionEvents));
    const sources = fs
      .readdirSync(path.join(REPO_ROOT, 'src', 'extension'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'));
    const setsKey = sources.some((file) =>
      /setContext['"],\s*['"]vesLens\.datasetAttached['"]/.test(fs.readFileSync(path.join(REPO_ROOT, 'src', 'extension', file), 'utf8')),
    );
    assert.ok(setsKey, 'an extension source sets the vesLens.datasetAttached context key');
  });
});
