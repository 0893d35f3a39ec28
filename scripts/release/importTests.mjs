// Runs the given test files in this one Node process (node:test collects the tests of every file imported, as
// --test-isolation=none does): under QEMU, starting Node and loading the modules costs more than most files' tests,
// so linuxArm64.sh pays for it once.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(path.resolve(file)).href);
