// Loaded (NODE_OPTIONS=--import) into every arm64 Node that scripts/release/linuxArm64.sh runs under qemu-user.
// Without binfmt_misc (a container here), the kernel cannot exec an arm64 binary: a child started from
// process.execPath (the CLI, the language server, a worker process) would fail with ENOEXEC. So such a child is
// started through the same emulator, `VES_LENS_QEMU` (`qemu-aarch64-static -L <sysroot>`). Other programs (npm,
// python3, esbuild) are this machine's own and run natively. A no-op in any Node that is not arm64.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const qemu = process.env.VES_LENS_QEMU?.split(' ').filter(Boolean);
if (process.arch === 'arm64' && qemu?.length) {
  const [emulator, ...emulatorArgs] = qemu;
  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
    const original = childProcess[name];
    childProcess[name] = function (file, args, ...rest) {
      if (file !== process.execPath) return original.call(this, file, args, ...rest);
      const [list, tail] = Array.isArray(args) ? [args, rest] : [[], [args, ...rest]];
      return original.call(this, emulator, [...emulatorArgs, file, ...list], ...tail.filter((x) => x !== undefined));
    };
  }
  const fork = childProcess.fork;
  childProcess.fork = function (modulePath, args, options) {
    if (!Array.isArray(args)) [args, options] = [[], args];
    const execArgv = options?.execArgv ?? process.execArgv;
    return fork.call(this, modulePath, args, {
      ...options,
      execPath: emulator,
      execArgv: [...emulatorArgs, options?.execPath ?? process.execPath, ...execArgv],
    });
  };
  syncBuiltinESMExports();
}
