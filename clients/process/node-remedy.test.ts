// A line-protocol program written in TypeScript and started by a Node too old to run it ends in one line that says
// which Node to use, not a stack trace to decipher.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadAdapterCommand } from '../load.ts';
import { nodeRemedy } from './adapter.ts';

describe('a .ts program under an old Node', () => {
  test('the remedy names the Node to use, only for a TypeScript entry under a Node before 22.18', () => {
    const trace = ['SyntaxError: Unexpected token \':\'', '    at wrapSafe (node:internal/modules/cjs/loader:1378:20)', 'Node.js v20.20.2'];
    expect(nodeRemedy(['driver.ts'], trace)).toContain('Node 20.20.2 cannot run a .ts file; run it with Node 22.18 or later');
    expect(nodeRemedy(['driver.mts', '--flag'], ['TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".mts"', 'Node.js v18.20.0'])).not.toBe('');
    expect(nodeRemedy(['driver.ts'], ['Error: boom', 'Node.js v24.21.0'])).toBe('');
    expect(nodeRemedy(['driver.js'], trace)).toBe('');
  });

  // The machine's own `node` on PATH, when it is older than 22.18 (the system Node 20 of a Debian image): the real case.
  const system = (() => {
    try {
      return execFileSync('node', ['--version'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } }).trim();
    } catch {
      return undefined;
    }
  })();
  const old = system !== undefined && /^v(\d+)\.(\d+)/.exec(system) !== null && (Number(/^v(\d+)/.exec(system)![1]) < 22 || system.startsWith('v22.') && Number(system.split('.')[1]) < 18);
  test.skipIf(!old)(`a real .ts program under the system Node (${system ?? 'none'}; skipped where it is 22.18 or later, or missing): the load fails with the remedy in one line`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-node-remedy-'));
    const program = join(dir, 'program.ts');
    writeFileSync(program, 'const hello: { protocol: number } = { protocol: 1 };\nconsole.log(JSON.stringify(hello));\n');
    const error = await loadAdapterCommand(`/usr/bin/node ${program}`).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/before its hello: Node v?\d+\.\d+\.\d+ cannot run a \.ts file; run it with Node 22\.18 or later/);
  });
});
