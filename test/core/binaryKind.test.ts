import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { binaryKind } from '../../src/core/bird/fileKind';

describe('binaryKind: a binary or UTF-16 input told from text by its first 64 KiB', () => {
  it('reads only the bytes it is given, wherever they sit in their buffer', () => {
    const noise = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 31) % 256));
    const text = Buffer.from('SELECT 1;\n'.repeat(100));
    const both = Buffer.concat([noise, text, noise]);
    assert.equal(binaryKind(both.subarray(noise.length, noise.length + text.length)), undefined);
    assert.equal(binaryKind(new Uint8Array(both.buffer, both.byteOffset, noise.length)), 'a binary file');
    const utf16 = Buffer.concat([text, Buffer.from('SELECT 1\n'.repeat(50), 'utf16le')]);
    assert.equal(binaryKind(utf16.subarray(text.length)), 'UTF-16 text without a byte-order mark (save it as UTF-8)');
  });

  it('decides from the first 64 KiB: three control bytes in text pass, noise past 64 KiB is not looked at', () => {
    const lines = Buffer.from('SELECT name FROM t WHERE x = 1;\n'.repeat(3000));
    assert.equal(binaryKind(Buffer.concat([Buffer.from('\x01\x02\x03'), lines])), undefined);
    assert.equal(binaryKind(Buffer.concat([Buffer.from('\x01\x02\x03\x04'), Buffer.from('SELECT 1;\n')])), 'a binary file');
    assert.equal(binaryKind(Buffer.concat([lines, Buffer.alloc(70_000, 1)])), undefined);
  });
});
