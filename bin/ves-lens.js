#!/usr/bin/env node
// Builds on first use so that `npx ves-lens` works straight from a clone.
const fs = require('fs');
const path = require('path');
const bundle = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundle)) {
  require('child_process').execFileSync(process.execPath, [path.join(__dirname, '..', 'esbuild.js')], {
    cwd: path.join(__dirname, '..'),
    stdio: 'inherit',
  });
}
require(bundle);
