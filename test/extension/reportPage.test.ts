// core's self-contained audit page made into a webview page (src/extension/reportPage.ts): the webview's policy
// only, every inline script and style carries the nonce, nothing of the inserted text is read as a pattern.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { auditHtml } from '../../src/core/audit/auditHtml';
import { reportWebviewPage } from '../../src/extension/reportPage';

const options = {
  nonce: 'abc123',
  cspSource: 'https://webview.test',
  media: (file: string) => `https://webview.test/media/${file}`,
  stylesheet: 'audit.css',
  script: 'audit.js',
  bar: '<div class="vl-bar">cost $& and $1</div>',
};

describe('reportWebviewPage', () => {
  const page = reportWebviewPage(
    auditHtml({ entries: [], ranked: [], measured: true, scales: [], prediction_files: [] }, ['questions q.json']),
    options,
  );

  it("replaces the file's policy with the webview's: no inline script or style without the nonce", () => {
    const policies = page.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g) ?? [];
    assert.equal(policies.length, 1);
    assert.match(policies[0], /default-src 'none'; style-src https:\/\/webview\.test 'nonce-abc123';.*script-src 'nonce-abc123'/);
    assert.doesNotMatch(page, /unsafe-inline/);
    for (const tag of page.match(/<(script|style)\b[^>]*>/g) ?? []) assert.match(tag, /nonce="abc123"/, tag);
    assert.ok(page.includes('<script nonce="abc123" src="https://webview.test/media/audit.js" defer></script>'));
    assert.ok(page.includes('<link rel="stylesheet" href="https://webview.test/media/audit.css">'));
  });

  it('puts the bar first in the body, as given', () => {
    assert.match(page, /<body>\n<div class="vl-bar">cost \$& and \$1<\/div>/);
  });

  it('refuses a page that is not a VES Lens report', () => {
    assert.throws(() => reportWebviewPage('<html><body>hi</body></html>', options), /not a VES Lens report page/);
  });
});
