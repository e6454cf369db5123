// npm test: pack the package as it would be published, install the tarball into a new
// project elsewhere, and test it there as a user would have it: the example, the
// node --test suite, and the TypeScript types.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const project = mkdtempSync(path.join(tmpdir(), 'kiln-sandbox-user-'));
const sh = (command, args, cwd, options = {}) => execFileSync(command, args, { cwd, stdio: 'inherit', ...options });

try {
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', project], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop();
  console.log(`packed ${packed}; testing it in ${project}`);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'kiln-sandbox-user', private: true, type: 'module' }));
  // @types/node: what a TypeScript user of node has, at the version this folder pins. The
  // cache holds its tarball after this folder's install, but not always the registry's
  // index of versions, so the registry may be asked (never when the cache can answer).
  const typesNode = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies['@types/node'];
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${packed}`, `@types/node@${typesNode}`], project);

  // the example prints the agent's result and exits 0
  cpSync(path.join(root, 'examples', 'agent.mjs'), path.join(project, 'agent.mjs'));
  const out = execFileSync(process.execPath, ['agent.mjs'], { cwd: project, encoding: 'utf8' });
  if (!out.includes('"revenue": 24825')) throw new Error(`the example printed something else:\n${out}`);
  console.log('examples/agent.mjs: ok');

  // the test suite, importing the installed package by its name
  cpSync(path.join(root, 'test'), path.join(project, 'test'), { recursive: true });
  const files = readdirSync(path.join(project, 'test')).filter((f) => f.endsWith('.test.mjs')).map((f) => path.join('test', f));
  sh(process.execPath, ['--test', ...files], project);

  // the hand-written types, checked against how a TypeScript user calls the package
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  cpSync(path.join(root, 'test', 'fixtures', 'usage.ts'), path.join(project, 'usage.ts'));
  sh(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', 'usage.ts'], project);
  console.log('index.d.ts: ok');
} finally {
  rmSync(project, { recursive: true, force: true });
}
