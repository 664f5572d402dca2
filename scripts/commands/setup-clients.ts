// `setup-clients` (npm run clients:setup): makes the client environments beyond npm that matrix entries run in.
import { ENVIRONMENTS, findEnvironment, isReady } from '../../clients/drivers/environments.ts';
import { setUp } from '../../clients/drivers/setup.ts';
import { defineCommand, UsageError } from './command.ts';

export const setupClients = defineCommand({
  name: 'setup-clients',
  summary: 'make the Python, Go, Rust and Java client environments the matrix runs (idempotent)',
  options: { force: { type: 'boolean' }, list: { type: 'boolean' } },
  positionals: { min: 0, max: ENVIRONMENTS.length, names: 'environment names' },
  help: () =>
    [
      'usage: mcp-client-conformance setup-clients [<name>...] [--force] [--list]',
      '',
      'Makes each client environment (all, or those named: python/mcp-1, go/go-sdk, …) in .clients/ (or',
      'MCP_CONFORMANCE_CLIENTS_DIR), pinned by its lock file; one made from the same inputs is left as it is.',
      '  --force   make them again even when up to date',
      '  --list    print each environment and whether it is ready, and make nothing',
      '',
      'exit code: 0 when every environment is ready or was skipped (its tool is missing: said why), 1 when one failed',
    ].join('\n'),
  async run(values, positionals) {
    const unknown = positionals.filter((name) => findEnvironment(name) === undefined);
    if (unknown.length > 0) throw new UsageError(`setup-clients: unknown environment ${unknown.join(', ')}; environments: ${ENVIRONMENTS.map((e) => e.name).join(', ')}`);
    const chosen = positionals.length > 0 ? positionals.map((name) => findEnvironment(name)!) : ENVIRONMENTS;
    if (values.list) {
      for (const environment of chosen) console.log(`${environment.name.padEnd(18)} ${isReady(environment) ? 'ready' : 'not set up'}`);
      return 0;
    }
    // One language's environments one after another, the languages side by side: a pip install waits on the disk
    // and the network while a Rust or Go build keeps the cores busy.
    const byLanguage = Map.groupBy(chosen, (environment) => environment.language);
    const outcomes = await Promise.all(
      [...byLanguage.values()].map(async (environments) => {
        const done = [];
        for (const environment of environments) {
          console.log(`setup-clients: ${environment.name} …`);
          const outcome = await setUp(environment, { force: values.force === true, log: (line) => console.log(`  ${environment.name}:${line}`) });
          console.log(`setup-clients: ${environment.name} ${outcome.state === 'ready' ? 'up to date' : outcome.state} in ${(outcome.ms / 1000).toFixed(1)} s${outcome.reason ? `: ${outcome.reason}` : ''}`);
          done.push(outcome);
        }
        return done;
      }),
    );
    const failed = outcomes.flat().filter((outcome) => outcome.state === 'failed').length;
    return failed > 0 ? 1 : 0;
  },
});
