// A verified rewrite of a read-only gold (issue 22, broken 3): never applied to the question document; the
// rewritten SQL is offered to copy or to open in a new editor, with why.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { isReadOnlyDocument, readOnlyRewriteMessage, rewrittenCopy } from '../../src/extension/readOnlyRewrite';

describe('a rewrite of a read-only gold', () => {
  it('question documents and read-only file systems are read-only; files and untitled editors are not', () => {
    assert.equal(isReadOnlyDocument('ves-lens-question', undefined), true);
    assert.equal(isReadOnlyDocument('git', false), true);
    assert.equal(isReadOnlyDocument('file', true), false);
    assert.equal(isReadOnlyDocument('untitled', undefined), false);
  });

  it('gives the rewritten statement to copy and the whole document (its -- bird: binding kept) for a new editor', () => {
    const text = "-- bird: 730\n-- db: superhero\nSELECT id\nFROM superhero\nWHERE name LIKE 'Batman';\n";
    const start = text.indexOf('SELECT');
    const like = text.indexOf("LIKE 'Batman'");
    const copy = rewrittenCopy(text, start, { start: like, end: like + 4, text: '=' });
    assert.equal(copy.statement, "SELECT id\nFROM superhero\nWHERE name = 'Batman'");
    assert.equal(copy.document, "-- bird: 730\n-- db: superhero\nSELECT id\nFROM superhero\nWHERE name = 'Batman';\n");
    assert.equal(rewrittenCopy('SELECT 1', 0, { start: 7, end: 8, text: '2' }).statement, 'SELECT 2');
  });

  it('says why it is not applied, and what was measured', () => {
    assert.match(
      readOnlyRewriteMessage('VL006', '58.50x faster', true),
      /VL006 rewrite verified: 58\.50x faster\. It is not applied: this gold is .*read-only .*cannot be edited or saved/,
    );
    assert.match(readOnlyRewriteMessage('VL006', 'about as fast', false), /same rows, but not measured faster: about as fast/);
  });
});
