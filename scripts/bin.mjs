#!/usr/bin/env node
// `orch-conformance <command>`: the package's entry point. The sources are TypeScript, run
// through tsx's loader in this process (signals reach the server directly); `serve` and `run`
// start from bundles of their sources (scripts/bundle.mjs).
//   serve   the reference server (reference/src/cli.ts)
//   run     the conformance suites (scripts/run.ts)
//   merge   merge the reports of shards (scripts/merge.ts)
//   fixtures  the authentication fixtures a target must trust (scripts/fixtures.ts)
//   convert  rewrite manifests from retired API versions (scripts/convert.ts)
//   node-config  validate and default node agent configuration files (scripts/node-config.ts)
//   kube-apiserver  one kube-apiserver with its etcd in the foreground (scripts/kube-apiserver.ts)
//   e2e     Kubernetes' own e2e tests against the reference in Kubernetes' words (scripts/e2e.ts)
//   diff    the same random operations against two servers, their answers compared (scripts/diff/)

const USAGE = `Usage: orch-conformance <command> [flags]

Commands:
  run      run the conformance suites against a server, or an embedded reference
           server when none is given, and write the reports (orch-conformance run --help)
  merge    merge the report directories of shards (run --shard I/N) into one report
           (orch-conformance merge --help)
  serve    run the reference server standalone (orch-conformance serve --help)
  fixtures write the credentials a target must trust for the authentication suites,
           and print the server flags (orch-conformance fixtures --help)
  node-config
           validate a node agent configuration file, print it defaulted, or print its
           JSON schema (orch-conformance node-config --help)
  convert  rewrite manifests from retired API versions to their replacements
           (orch-conformance convert -f FILE [--output-version GROUP/VERSION])
  kube-apiserver
           run one kube-apiserver with an etcd of its own in the foreground, from a folder
           of binaries: the server the health cases start against Kubernetes
           (orch-conformance kube-apiserver --help)
  e2e      run Kubernetes' own e2e tests (v1.28.0, API machinery) against the reference
           server in Kubernetes' words, and compare with kube-apiserver 1.28
           (orch-conformance e2e --help)
  diff     run the same seeded random operations against two servers and report where
           their answers differ, shrunk, with a reproducer per side
           (orch-conformance diff --help)
  help     this text

Examples:
  orch-conformance run --area watch,chunking
  orch-conformance run --endpoint https://127.0.0.1:6443 --token "$TOKEN" --ca ca.pem
  orch-conformance run --kubeconfig ~/.kube/config --dialect kubernetes --expect expectations/kubernetes-1.28.yaml
  orch-conformance merge out/shard-1 out/shard-2 --report out/report
`;

const [cmd, ...rest] = process.argv.slice(2);

switch (cmd) {
  case 'serve': {
    const { load } = await import('./bundle.mjs');
    const { main } = await load('reference/src/cli.ts', { lazyStacks: true });
    const code = await main(['serve', ...rest]);
    if (code !== undefined) process.exit(code);
    break;
  }
  case 'run': {
    const { load } = await import('./bundle.mjs');
    const { run } = await load('scripts/run.ts');
    process.exit(await run(rest));
    break;
  }
  case 'merge': {
    const { register } = await import('tsx/esm/api');
    register();
    const { merge } = await import('./merge.ts');
    process.exit(await merge(rest));
    break;
  }
  case 'fixtures': {
    const { register } = await import('tsx/esm/api');
    register();
    const { fixtures } = await import('./fixtures.ts');
    process.exit(await fixtures(rest));
    break;
  }
  case 'node-config': {
    const { register } = await import('tsx/esm/api');
    register();
    const { nodeConfig } = await import('./node-config.ts');
    process.exitCode = nodeConfig(rest);
    break;
  }
  case 'convert': {
    const { register } = await import('tsx/esm/api');
    register();
    const { convert } = await import('./convert.ts');
    process.exitCode = convert(rest);
    break;
  }
  case 'kube-apiserver': {
    const { register } = await import('tsx/esm/api');
    register();
    const { kubeApiserver } = await import('./kube-apiserver.ts');
    process.exit(await kubeApiserver(rest));
    break;
  }
  case 'e2e': {
    const { register } = await import('tsx/esm/api');
    register();
    const { e2e } = await import('./e2e.ts');
    process.exit(await e2e(rest));
    break;
  }
  case 'diff': {
    const { register } = await import('tsx/esm/api');
    register();
    const { diff } = await import('./diff/cli.ts');
    process.exit(await diff(rest));
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
