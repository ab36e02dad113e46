#!/usr/bin/env node
// `orch-conformance <command>`: the package's entry point. The sources are TypeScript, run
// through tsx's loader in this process (signals reach the server directly).
//   serve   the reference server (reference/src/cli.ts)
//   run     the conformance suites (scripts/run.ts)

const USAGE = `Usage: orch-conformance <command> [flags]

Commands:
  serve    run the reference server standalone (orch-conformance serve --help)
  run      run the conformance suites against a server (orch-conformance run --help)
`;

const [cmd, ...rest] = process.argv.slice(2);

switch (cmd) {
  case 'serve': {
    const { register } = await import('tsx/esm/api');
    register();
    const { main } = await import('../reference/src/cli.ts');
    const code = await main(['serve', ...rest]);
    if (code !== undefined) process.exit(code);
    break;
  }
  case 'run': {
    const { register } = await import('tsx/esm/api');
    register();
    const { run } = await import('./run.ts');
    process.exit(await run(rest));
    break;
  }
  case 'help':
  case '-h':
  case '--help':
    process.stdout.write(USAGE);
    break;
  case undefined:
    process.stderr.write(USAGE);
    process.exit(2);
    break;
  default:
    process.stderr.write(`orch-conformance: unknown command "${cmd}"\n\n${USAGE}`);
    process.exit(2);
}
