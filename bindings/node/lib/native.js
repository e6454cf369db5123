'use strict';
// Finds the native addon and the worker binary for this platform: beside the package
// (a local build, or a tarball that carries them), else in the platform's own package
// (kiln-sandbox-<platform>). When neither is there, the error names both.

const fs = require('node:fs');
const path = require('node:path');

const PACKAGE = 'kiln-sandbox';

/** The platform as napi-rs names its builds: linux-x64-gnu, darwin-arm64, win32-x64-msvc, ... */
function platform() {
  const { platform: os, arch } = process;
  if (os === 'linux') {
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (os === 'win32') return `win32-${arch}-msvc`;
  return `${os}-${arch}`;
}

const PLATFORM = platform();
const ADDON = `${PACKAGE}.${PLATFORM}.node`;
const WORKER = `kiln-worker.${PLATFORM}${process.platform === 'win32' ? '.exe' : ''}`;
const PLATFORM_PACKAGE = `${PACKAGE}-${PLATFORM}`;

/** The directories that may hold this platform's binaries, in order. */
function candidates() {
  const dirs = [path.join(__dirname, '..')];
  try {
    dirs.push(path.dirname(require.resolve(`${PLATFORM_PACKAGE}/package.json`)));
  } catch {
    // the platform package is not installed
  }
  return dirs;
}

function load() {
  const dirs = candidates();
  for (const dir of dirs) {
    const file = path.join(dir, ADDON);
    if (fs.existsSync(file)) {
      const addon = require(file);
      const worker = path.join(dir, WORKER);
      return { addon, worker: fs.existsSync(worker) ? worker : undefined };
    }
  }
  const error = new Error(
    `kiln-sandbox has no native binary for this platform (${PLATFORM}, node ${process.version}): ` +
      `expected the package ${PLATFORM_PACKAGE} to be installed, or ${ADDON} in ${dirs[0]}. ` +
      `Reinstall without --no-optional / --omit=optional, or build it from source with ` +
      `\`npm run build\` in the package's bindings/node folder.`,
  );
  error.code = 'KILN_NO_NATIVE_BINARY';
  throw error;
}

module.exports = { load, PLATFORM, PLATFORM_PACKAGE };
