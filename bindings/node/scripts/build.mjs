// npm run build: the native addon (with the napi-rs CLI) and the kiln-worker binary
// that process isolation runs, both placed beside index.js under this platform's name.
// `--debug` builds them unoptimised (faster to build; what the tests need).
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const debug = process.argv.includes('--debug');
const { PLATFORM } = createRequire(import.meta.url)('../lib/native.js');

const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: 'inherit' });

const napi = path.join(root, 'node_modules', '.bin', 'napi');
run(napi, ['build', '--platform', '--no-js', '--dts', 'native.d.ts', ...(debug ? [] : ['--release'])]);

// cargo says where it put the binary (the target directory and triple vary)
const messages = execFileSync(
  'cargo',
  ['build', '-p', 'kiln_bridge', '--bin', 'kiln-worker', '--message-format=json-render-diagnostics', ...(debug ? [] : ['--release'])],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 },
);
const built = messages
  .toString()
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .find((m) => m.reason === 'compiler-artifact' && m.target?.name === 'kiln-worker')?.executable;
if (!built) throw new Error('cargo did not report the kiln-worker binary');
const exe = process.platform === 'win32' ? '.exe' : '';
const placed = path.join(root, `kiln-worker.${PLATFORM}${exe}`);
copyFileSync(built, placed);
chmodSync(placed, 0o755);
console.log(`built kiln-sandbox.${PLATFORM}.node and kiln-worker.${PLATFORM}${exe}`);
