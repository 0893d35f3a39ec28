#!/usr/bin/env bash
# Installs what scripts/release/linuxArm64.sh needs on a fresh x86-64 Debian machine, from Debian's packages: the
# aarch64 cross compiler (node-sqlite3 is built for arm64 with it), the arm64 C and C++ runtime libraries (the
# sysroot /usr/aarch64-linux-gnu that QEMU loads an arm64 Node against) and qemu-user-static (runs arm64 programs
# one process at a time, no binfmt_misc or virtual machine needed); unzip and file to check the package. Idempotent.
set -euo pipefail
missing=
for tool in aarch64-linux-gnu-g++ qemu-aarch64-static unzip file; do command -v "$tool" >/dev/null || missing=1; done
if [ -n "$missing" ] || [ ! -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq g++-aarch64-linux-gnu libc6-arm64-cross libstdc++6-arm64-cross qemu-user-static unzip file >/dev/null
fi
qemu-aarch64-static --version | head -1
