#!/usr/bin/env bash
# Installs what the PostgreSQL tests and benches need on a fresh machine, from Debian's packages: the
# PostgreSQL 15 server binaries (the tests start a throwaway cluster of their own on a unix socket and stop it;
# no system service is used) and psycopg2 for Debian's python3 (the official scripts' driver, run beside VES
# Lens to check that EX agrees). Idempotent.
set -euo pipefail
PG_BIN=/usr/lib/postgresql/15/bin
if [ ! -x "$PG_BIN/initdb" ] || ! /usr/bin/python3 -c 'import psycopg2' >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d: install the packages without starting Debian's own cluster service.
  made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
  fi
  apt-get install -y -qq postgresql-15 python3-psycopg2 >/dev/null
  [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
fi
"$PG_BIN/postgres" --version
