// text/redact.ts, the one redaction every output passes through: a password is masked in whatever shape its
// connection string was given (malformed schemes, no scheme, percent-encoded, parameters, key=value DSNs), and
// ordinary text (every gold SQL and question of mini-dev, URLs without a password) comes out unchanged.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { passwordsIn, redactSecrets, rememberSecretsIn } from '../../src/core/text/redact';
import { BIRD_DATA, birdDataMissing } from '../helpers';
import { PASSWORD_FORMS } from '../passwordForms';

describe('redactSecrets', () => {
  for (const [form, password] of PASSWORD_FORMS)
    it(`masks the password of ${form}, alone and inside a message`, () => {
      for (const text of [form, `error: --db-url: expected postgresql://user@host/db, got "${form}"`, JSON.stringify({ url: form })]) {
        const out = redactSecrets(text);
        assert.ok(!out.includes(password), out);
        assert.ok(out.includes('***'), out);
      }
    });

  it('keeps the user and host so the message still says which server', () => {
    assert.equal(redactSecrets('mysql://u:pw@h/db'), 'mysql://u:***@h/db');
    assert.equal(redactSecrets('see postgresql:/u:pw@h/db.'), 'see postgresql:/u:***@h/db.');
    assert.equal(redactSecrets('u:pw@h/db'), 'u:***@h/db');
  });

  it('leaves URLs without a password and ordinary words alone', () => {
    for (const text of [
      'postgresql://user@host:port/database',
      'postgresql://postgres@localhost:5432/bird?host=%2Ftmp',
      'expected postgresql://user@host:port/database, got "x"',
      'a password is never printed; asks for a password: run "Set Password"',
      'time 00:50:06 UTC, ratio 1:2 @ 3',
    ])
      assert.equal(redactSecrets(text), text);
  });

  it('masks a remembered password wherever it shows up again (a driver quoting it, decoded)', () => {
    rememberSecretsIn(['--db-url', 'postgres://u:s3cr%40tZ@h/db']);
    assert.deepEqual(passwordsIn('postgres://u:s3cr%40tZ@h/db').sort(), ['s3cr%40tZ', 's3cr@tZ'].sort());
    assert.equal(redactSecrets('authentication failed: s3cr@tZ'), 'authentication failed: ***');
  });
});

describe('redactSecrets on real BIRD text', { skip: birdDataMissing() }, () => {
  it('changes no gold SQL, question or evidence of mini-dev', () => {
    const folder = path.join(BIRD_DATA, 'questions');
    for (const file of fs.readdirSync(folder)) {
      const text = fs.readFileSync(path.join(folder, file), 'utf8');
      const changed = text.split('\n').filter((line) => redactSecrets(line) !== line);
      assert.deepEqual(changed, [], file);
    }
  });
});
