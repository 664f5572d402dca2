// `init`: in a client's repository, the files a first run and a CI gate need: the adapter module (a Node client) or a
// line-protocol program (Python, Go, Rust, Java) from the package's templates (clients/template/templates.ts), a first
// baseline, and a GitHub Actions workflow that runs the suite through the Action (action.yml). Nothing is overwritten
// unless asked; what to do next is printed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { PACKAGE_VERSION } from '../../api/package.ts';
import { existingFiles, LANGUAGES, PROGRAM_TEMPLATES, writeProgram, type Language } from '../../clients/template/templates.ts';
import { defineCommand, fromUser, optionLines, UsageError } from './command.ts';

/** The name every template's adapter declares (`name` in its hello or module): the baseline is that adapter's. */
export const TEMPLATE_ADAPTER = 'my-client';
const WORKFLOW = join('.github', 'workflows', 'mcp-conformance.yml');

/** A repository's language from the build file at its top, the first that is there; Node when none is. */
const MARKERS: readonly [string, Language][] = [
  ['go.mod', 'go'],
  ['Cargo.toml', 'rust'],
  ['pom.xml', 'java'],
  ['build.gradle', 'java'],
  ['build.gradle.kts', 'java'],
  ['pyproject.toml', 'python'],
  ['setup.py', 'python'],
  ['requirements.txt', 'python'],
];

export function detectLanguage(root: string): { language: Language; because: string } {
  const marker = MARKERS.find(([file]) => existsSync(join(root, file)));
  return marker ? { language: marker[1], because: `${marker[0]} is there` } : { language: 'node', because: 'no go.mod, Cargo.toml, pom.xml, build.gradle, pyproject.toml, setup.py or requirements.txt is there' };
}

/** The steps of the workflow's job before the suite runs: the toolchain, and the program built. */
function buildSteps(language: Language, dir: string): string[] {
  switch (language) {
    case 'node':
      return [];
    case 'python':
      return ['- uses: actions/setup-python@v5', "  with: { python-version: '3.12' }", '- run: pip install mcp                 # your client, which the program imports'];
    case 'go':
      return ['- uses: actions/setup-go@v5', `  with: { go-version-file: ${dir}/go.mod }`, `- run: ${PROGRAM_TEMPLATES.go.build}`, `  working-directory: ${dir}`];
    case 'rust':
      return ['- run: cargo build --locked', `  working-directory: ${dir}`];
    case 'java':
      return ['- uses: actions/setup-java@v4', "  with: { distribution: temurin, java-version: '17' }", `- run: ${PROGRAM_TEMPLATES.java.build}`, `  working-directory: ${dir}`];
  }
}

/** The workflow: the repository's own install, the program built, then the Action with the adapter and the baseline. */
export function workflow(language: Language, dir: string, baseline: string): string {
  const run = PROGRAM_TEMPLATES[language].run(dir);
  const input = language === 'node' ? `adapter: ${run}` : `adapter-command: ${run}`;
  const indent = (lines: string[]) => lines.map((line) => `      ${line}`);
  return [
    '# MCP client conformance on every push: the suite (mcp-client-conformance) drives the client through the adapter',
    `# written by \`npx mcp-client-conformance init\`, and the step fails on a result its baseline does not expect.`,
    '# The Action runs the suite from its own repository at the ref below: pin the version you installed.',
    'name: MCP conformance',
    'on: [push, pull_request]',
    'jobs:',
    '  conformance:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    ...indent([
      '- uses: actions/checkout@v4',
      // The Action sets up its own Node and runs the suite from its own checkout: the repository's npm install is
      // needed only where the adapter imports the client from it.
      ...(language === 'node' ? ['- uses: actions/setup-node@v4', "  with: { node-version: '24' }", '- run: npm ci                            # your repository: your client, which the adapter imports'] : []),
      ...buildSteps(language, dir),
      `- uses: OWNER/mcp-client-conformance@v${PACKAGE_VERSION}   # OWNER: where the suite's repository is (its README, "Use it in your CI")`,
      '  with:',
      `    ${input}`,
      `    baseline: ${baseline}`,
    ]),
    '',
  ].join('\n');
}

/** A first baseline: the template's adapter with no known failure yet (a run writes the real one, see the next steps). */
export const firstBaseline = (): string => `${JSON.stringify({ adapter: TEMPLATE_ADAPTER, format: 2, known: [] }, null, 2)}\n`;

/** A path as the user types it from the directory they ran init in. */
const shown = (path: string) => path.split('\\').join('/');

export const init = defineCommand({
  name: 'init',
  summary: "write an adapter (or a line-protocol program), a first baseline and a CI workflow into your client's repository",
  options: { language: { type: 'string' }, dir: { type: 'string' }, force: { type: 'boolean' } },
  help: () =>
    [
      'usage: mcp-client-conformance init [--language <language>] [--dir <folder>] [--force]',
      '',
      "Writes into the current directory (your client's repository):",
      '  <folder>/my-adapter.mts                 an adapter module wrapping the official TypeScript SDK (node), or',
      '  <folder>/…                              a line-protocol program wrapping that language\'s official SDK, on the',
      '                                          package\'s line-protocol library (python, go, rust, java);',
      '  <folder>/baseline.json                  a first baseline: your client\'s known failures (none yet);',
      `  ${WORKFLOW.padEnd(38)}  a GitHub Actions workflow running the suite through its Action.`,
      'Then it prints the commands of a first run. It overwrites nothing unless --force.',
      '',
      optionLines([
        ['--language <language>', `${LANGUAGES.join(', ')} (default: from the build file at the top: go.mod, Cargo.toml,\npom.xml or build.gradle, pyproject.toml, setup.py or requirements.txt; else node)`],
        ['--dir <folder>', 'where the adapter or program and the baseline go (default: conformance)'],
        ['--force', 'overwrite files that are there'],
      ]),
      '',
      'exit code: 0 when written, 2 on bad usage or when a file is there already (without --force)',
    ].join('\n'),
  async run(values) {
    const root = fromUser('.');
    const chosen = values.language;
    if (chosen !== undefined && !(LANGUAGES as readonly string[]).includes(chosen)) throw new UsageError(`init: unknown language "${chosen}"; languages: ${LANGUAGES.join(', ')}`);
    const { language, because } = chosen !== undefined ? { language: chosen as Language, because: 'as asked' } : detectLanguage(root);
    const folder = values.dir ?? 'conformance';
    if (isAbsolute(folder) || relative(root, join(root, folder)).startsWith('..')) throw new UsageError(`init: --dir must be a folder inside this one (got "${folder}")`);
    const dir = join(root, folder);
    const baseline = join(folder, 'baseline.json');
    const extra = [baseline, WORKFLOW];
    const there = [...existingFiles(language, dir).map((path) => join(folder, path)), ...extra.filter((path) => existsSync(join(root, path)))];
    if (there.length > 0 && !values.force) throw new UsageError(`init: ${there.map(shown).join(', ')} ${there.length === 1 ? 'is' : 'are'} there already; --force overwrites`);

    const written = writeProgram(language, dir).map((path) => join(folder, path));
    writeFileSync(join(root, baseline), firstBaseline());
    mkdirSync(dirname(join(root, WORKFLOW)), { recursive: true });
    writeFileSync(join(root, WORKFLOW), workflow(language, shown(folder), shown(baseline)));

    const template = PROGRAM_TEMPLATES[language];
    const run = template.run(shown(folder));
    const adapterArgs = language === 'node' ? `--adapter ${run}` : `--adapter-command "${run}"`;
    const needs = {
      node: 'it wraps @modelcontextprotocol/client (installed with this package); put your client in its place',
      python: 'it wraps the mcp SDK: pip install mcp, or put your client in its place',
      go: "it wraps the official Go SDK (go.mod); put your client's module in its place",
      rust: 'it wraps rmcp (Cargo.toml); put your client in its place',
      java: 'it wraps the official Java SDK (pom.xml); put your client in its place',
    }[language];
    console.log(
      [
        `init: ${language} (${because}); wrote:`,
        ...[...written, baseline, WORKFLOW].map((path) => `  ${shown(path)}`),
        '',
        'next:',
        `  1. ${needs}: the three places marked (1), (2), (3)`,
        ...(template.build ? [`  2. build it: (cd ${shown(folder)} && ${template.build})`] : []),
        `  ${template.build ? 3 : 2}. npx mcp-client-conformance run ${adapterArgs}`,
        `  ${template.build ? 4 : 3}. npx mcp-client-conformance run ${adapterArgs} --write-baseline ${shown(baseline)}`,
        `     (your known failures; give each entry your reason), then commit: ${shown(WORKFLOW)} gates every push on it`,
        `     (set its \`uses:\` to where the suite's repository is).`,
      ].join('\n'),
    );
    return 0;
  },
});
