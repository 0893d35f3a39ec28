#!/usr/bin/env bash
# Installs what the MySQL tests and benches need on a fresh machine, from Debian's packages: the MariaDB 10.11
# server binaries (Debian has no MySQL 8; the tests start a throwaway server of their own on a unix socket and
# stop it; no system service is used) and pymysql for Debian's python3 (mini_dev's MySQL driver, run beside VES
# Lens to check that EX agrees). Idempotent.
set -euo pipefail
if [ ! -x /usr/sbin/mariadbd ] || ! /usr/bin/python3 -c 'import pymysql' >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d: install the packages without starting Debian's own server service.
  made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made_policy=1
  fi
  apt-get install -y -qq mariadb-server python3-pymysql >/dev/null
  [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
fi
/usr/sbin/mariadbd --version
