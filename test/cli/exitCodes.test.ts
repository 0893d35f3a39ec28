import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { InputFileError } from '../../src/core/bird/problems';
import { DatabaseError } from '../../src/core/db/database';
import { EXIT, reportFailure, UsageError } from '../../src/cli/common';

/** Issue 8, item 8: one exit rule for every command, and no stack trace unless --debug. */
describe('reportFailure: the exit rule', () => {
  const report = (error: unknown, debug = false) => {
    let text = '';
    const code = reportFailure(error, { debug, write: (t) => (text += t) });
    return { code, text };
  };

  it('usage and input errors: 2, the message, no stack', () => {
    for (const error of [
      new UsageError('--timeout: expected a positive number, got "abc"'),
      new InputFileError({ file: 'p.json', where: 'line 3, column 2', message: 'not valid JSON' }),
    ]) {
      const { code, text } = report(error);
      assert.equal(code, EXIT.input);
      assert.match(text, /error.*: (--timeout|p\.json \(line 3, column 2\))/);
      assert.doesNotMatch(text, /^\s+at /m);
    }
  });

  it('commander: its own usage errors 2, help and version 0 (it printed them already)', () => {
    assert.deepEqual(report(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'")), {
      code: EXIT.input,
      text: '',
    });
    assert.deepEqual(report(new CommanderError(1, 'commander.help', '(outputHelp)')), { code: EXIT.input, text: '' });
    assert.deepEqual(report(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)')), { code: EXIT.done, text: '' });
    assert.deepEqual(report(new CommanderError(0, 'commander.version', '0.1.0')), { code: EXIT.done, text: '' });
  });

  it('a database that cannot be read: 2', () => {
    assert.equal(report(new DatabaseError('database disk image is malformed')).code, EXIT.input);
  });

  it('anything else is a bug: 1, said so, the stack only with --debug', () => {
    const plain = report(new TypeError("Cannot read properties of undefined (reading 'x')"));
    assert.equal(plain.code, EXIT.bug);
    assert.match(plain.text, /unexpected error.*a bug in ves-lens; please report it, with the stack trace that --debug prints/);
    assert.doesNotMatch(plain.text, /^\s+at /m);
    const debug = report(new TypeError('boom'), true);
    assert.match(debug.text, /^\s+at /m);
    assert.equal(report('a thrown string').code, EXIT.bug);
  });
});
