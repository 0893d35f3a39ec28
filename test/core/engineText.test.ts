// The status bar's short name of what runs the SQL, for each engine (a MySQL-protocol server was called
// "PostgreSQL" before: the label knew two engines).
import { strict as assert } from 'node:assert';
import { it } from 'node:test';
import type { EngineDescription } from '../../src/core/db/source';
import { engineShortLabel } from '../../src/core/text/engineText';

const described = (fields: Partial<EngineDescription> & Pick<EngineDescription, 'engine' | 'version'>): EngineDescription => ({
  runs: 'server',
  location: 'somewhere',
  ...fields,
});

it('names each engine with its version number only, and how it runs where that matters', () => {
  assert.equal(engineShortLabel(null, '3.45.1'), 'SQLite 3.45.1');
  assert.equal(
    engineShortLabel(described({ engine: 'sqlite', version: '3.54.1', runs: 'embedded', build: 'WebAssembly' }), '3.45.1'),
    'SQLite 3.54.1 WebAssembly',
  );
  assert.equal(
    engineShortLabel(described({ engine: 'postgres', version: '15.18 (Debian 15.18-0+deb12u1)' }), '3.45.1'),
    'PostgreSQL 15.18',
  );
  assert.equal(
    engineShortLabel(described({ engine: 'postgres', version: '17.4', runs: 'embedded' }), '3.45.1'),
    'PostgreSQL 17.4 embedded',
  );
  assert.equal(
    engineShortLabel(described({ engine: 'mysql', version: '10.11.19-MariaDB-0+deb12u1', product: 'MariaDB' }), '3.45.1'),
    'MariaDB 10.11.19',
  );
  assert.equal(engineShortLabel(described({ engine: 'mysql', version: '8.4.3' }), '3.45.1'), 'MySQL 8.4.3');
});
