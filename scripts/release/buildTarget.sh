#!/usr/bin/env bash
# Builds and checks one platform's .vsix on a machine of that platform (release.yml runs it on each OS runner, or in a
# container of that C library and architecture): node-sqlite3 compiled here by npm ci, the production bundle, the CLI
# scored on the sample with that native module (never the WebAssembly fallback), then `vsce package --target`.
# `universal`: no native module at all, SQLite as WebAssembly everywhere. VES_LENS_SKIP_INSTALL=1 keeps node_modules.
set -euo pipefail
target="${1:?usage: buildTarget.sh <vsce target>|universal}"
cd "$(dirname "$0")/../.."
[ -n "${VES_LENS_SKIP_INSTALL:-}" ] || npm ci --no-audit --no-fund
node esbuild.js --production

sample=(eval --questions sample/mini_dev_superhero.json --gold sample/mini_dev_superhero_gold.sql
  --predictions sample/predict_gpt-4_superhero.json --db-root sample --metrics ex,f1 --no-gold-cache)
if [ "$target" = universal ]; then
  # The native module left out: its JavaScript stays, and says why it does not load.
  rm -rf node_modules/@vscode/sqlite3/build
  VES_LENS_SQLITE='' node bin/ves-lens.js "${sample[@]}" --json "ves-lens-$target.json" 2> "ves-lens-$target.log"
  grep -q 'SQLite runs as WebAssembly' "ves-lens-$target.log"
  npx vsce package --no-rewrite-relative-links --out "ves-lens-$target.vsix"
else
  VES_LENS_SQLITE=native node bin/ves-lens.js "${sample[@]}" --json "ves-lens-$target.json" 2> "ves-lens-$target.log"
  if grep -q WebAssembly "ves-lens-$target.log"; then
    cat "ves-lens-$target.log" >&2
    exit 1
  fi
  npx vsce package --target "$target" --no-rewrite-relative-links --out "ves-lens-$target.vsix"
fi
# The sample scored as on a developer machine (`npm run sample`: 40 of its 52 questions correct).
node -e "const r=require('./ves-lens-$target.json');const c=r.questions.filter(q=>q.outcome==='correct').length;if(c!==40){console.error('correct: '+c+' of 52, expected 40');process.exit(1)}"
echo "ves-lens-$target.vsix: $(wc -c < "ves-lens-$target.vsix") bytes"
