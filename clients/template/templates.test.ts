// The templates a third party starts from (clients/template/templates.ts), each run through the suite as `init` writes
// it: the Node adapter module in-process, the Python program with the `mcp` SDK's environment, the Go, Rust and Java
// programs as `npm run clients:setup` built them (environments template/<language>: written, then built, by the same
// code). A toolchain or an environment that is missing is a skip that says which command makes it: npm test never
// downloads a dependency.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { environmentDir, findEnvironment, isReady, templateCommand } from '../drivers/environments.ts';
import { loadAdapter, loadAdapterCommand, splitCommandLine } from '../load.ts';
import { SCENARIOS } from '../../suites/index.ts';
import { runScenario } from '../../suites/runner.ts';
import type { ClientAdapter } from '../adapter.ts';
import { LANGUAGES, PROGRAM_TEMPLATES, programFiles, writeProgram, type Language } from './templates.ts';

/** Two cheap cases: the handshake over Streamable HTTP and over stdio, at the newest revision every template speaks. */
const CASES = ['negotiation/handshake-order', 'stdio/handshake-order'].map((id) => SCENARIOS.find((scenario) => scenario.id === id)!);
const REVISION = '2025-11-25';

const tmp = mkdtempSync(join(tmpdir(), 'mcp-templates-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The environment a language's program needs, and why it is skipped without it. */
function needs(language: Language): { name: string; ready: boolean; reason: string } | undefined {
  if (language === 'node') return undefined;
  const name = language === 'python' ? 'python/mcp-1' : `template/${language}`;
  const environment = findEnvironment(name)!;
  return { name, ready: isReady(environment), reason: `${name} is not set up (npm run clients:setup -- ${name}; it needs ${environment.tool} on PATH)` };
}

/** The adapter for a language's program: the module, or the program as `run --adapter-command` starts it. */
async function templateAdapter(language: Language): Promise<ClientAdapter> {
  if (language === 'node') return loadAdapter(PROGRAM_TEMPLATES.node.run(join(import.meta.dirname, 'node')));
  if (language === 'python') {
    // Written as init writes it, run with the interpreter of the environment that has the `mcp` SDK.
    const dir = join(tmp, 'python');
    writeProgram('python', dir);
    const [, ...rest] = splitCommandLine(PROGRAM_TEMPLATES.python.run(dir));
    return loadAdapterCommand([join(environmentDir(findEnvironment('python/mcp-1')!), 'bin', 'python'), ...rest].join(' '));
  }
  return loadAdapterCommand(templateCommand(findEnvironment(`template/${language}`)!));
}

describe('the written program', () => {
  test.each(LANGUAGES)('%s: the template and its line-protocol library, no build output', (language) => {
    const dir = join(tmp, 'written', language);
    const written = writeProgram(language, dir);
    expect(written).toEqual(programFiles(language).map((file) => file.to));
    expect(written.filter((path) => /(^|\/)(target|node_modules|__pycache__)\//.test(path))).toEqual([]);
    const library = PROGRAM_TEMPLATES[language].library;
    if (library) expect(written.some((path) => path === library.to || path.startsWith(`${library.to}/`))).toBe(true);
    // Every template names itself the same way: the baseline `init` writes is for that name.
    const main = { node: 'my-adapter.mts', python: 'my_client.py', go: 'main.go', rust: 'src/main.rs', java: 'src/main/java/myclient/MyClient.java' }[language];
    expect(readFileSync(join(dir, main), 'utf8')).toMatch(/["']my-client["']/);
  });
});

describe.each(LANGUAGES)('the %s template through the suite', (language) => {
  const environment = needs(language);
  test.skipIf(environment !== undefined && !environment.ready)(
    `passes the handshake over Streamable HTTP and stdio at ${REVISION}${environment && !environment.ready ? ` (skipped: ${environment.reason})` : ''}`,
    async ({ skip }) => {
      const adapter = await templateAdapter(language);
      try {
        expect(adapter.name).toBe('my-client');
        for (const scenario of CASES) {
          const result = await runScenario(scenario, adapter, REVISION);
          // The suite could not judge (a busy machine): not the template's failure.
          if (result.verdict === 'inconclusive') skip(`${scenario.id}: inconclusive: ${result.reason}`);
          expect([scenario.id, result.verdict, result.reason]).toEqual([scenario.id, 'pass', undefined]);
        }
      } finally {
        await adapter.shutdown?.();
      }
    },
  );
});
