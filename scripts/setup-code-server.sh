#!/usr/bin/env bash
# Installs what the editor tests need on a fresh machine: Debian's chromium (Playwright drives it), ripgrep,
# and code-server 4.100.3 (VS Code 1.100 with a Node extension host) in its own folder, .vscode-test/.
# The desktop VS Code cannot be downloaded here; see docs/architecture.md (Tests). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
CODE_SERVER_VERSION=4.100.3
# VES_LENS_CODE_SERVER_DIR: another install folder (the script's own test points it at a stand-in).
TARGET=${VES_LENS_CODE_SERVER_DIR:-.vscode-test/code-server}

if ! command -v chromium >/dev/null || ! command -v rg >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium libkrb5-dev ripgrep >/dev/null
fi

if [ ! -x "$TARGET/node_modules/.bin/code-server" ]; then
  mkdir -p "$TARGET"
  # @vscode/ripgrep would download its binary from GitHub: hand it Debian's rg through its download cache.
  cache_root=$(mktemp -d)
  cache="$cache_root/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$cache/rg-staging"
  cp "$(command -v rg)" "$cache/rg-staging/rg"
  tar -czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$cache/rg-staging" rg
  (
    cd "$TARGET"
    [ -f package.json ] || echo '{"name":"ves-lens-code-server","private":true}' > package.json
    TMPDIR="$cache_root" npm_config_yes=true npm install --no-audit --no-fund --unsafe-perm=true "code-server@$CODE_SERVER_VERSION" >/dev/null
  )
  rm -rf "$cache_root"
fi
# code-server writes its config.yaml (with a generated password) and data folders under HOME and XDG on every
# start, --version included: it gets a throwaway home inside the project, removed on exit.
mkdir -p "$(dirname "$TARGET")"
scratch_home=$(mktemp -d "$(dirname "$TARGET")/setup-home.XXXXXX")
trap 'rm -rf "$scratch_home"' EXIT
HOME="$scratch_home" XDG_CONFIG_HOME="$scratch_home/.config" XDG_DATA_HOME="$scratch_home/.local/share" \
  XDG_CACHE_HOME="$scratch_home/.cache" "$TARGET/node_modules/.bin/code-server" --version | head -1
