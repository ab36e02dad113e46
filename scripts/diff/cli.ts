// `orch-conformance diff`: runs the same seeded sequences of operations against two servers
// and reports where their answers differ (runner.ts), with a reproducer per side.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DialectName } from '../../harness/src/dialect.ts';
import { assetsDir, HOW_TO_GET_ASSETS } from '../../harness/src/control-plane/assets.ts';
import { type ExpectationFile, loadExpectations } from '../../harness/src/expectations.ts';
import { knownDepartures } from './known.ts';
import { writeReport } from './report.ts';
import { type DiffResult, runDiff } from './runner.ts';
import { REFERENCE_MODES, type ReferenceMode, type SideSpec, startSides } from './sides.ts';

export const DIFF_HELP = `Usage: orch-conformance diff SIDE SIDE [options]

Runs the same seeded random sequences of operations against two servers and compares their
answers: create (named and generated, dry run, Strict field validation), get (missing names
too), update (current, stale and no resourceVersion), merge, JSON and strategic merge patches,
server-side apply by several field managers (with and without force), delete (finalizers,
preconditions), lists (label and field selectors, limit and continue) and watches from a
version, on ConfigMaps, Secrets and a custom resource of the run's own. Each sequence runs in
a namespace of its own on each side. Exit code 0 when the answers never differ, 1 when they
do, 2 on a usage error.

Each difference is shrunk to the shortest sequence that still shows it and reported once per
kind (the operation, its resource, and the status codes or the first field that differ), with
both normalised answers and one curl script per side that sends its requests again.

What is compared: status codes; bodies after normalisation (uids, object resourceVersions and
generated names become their order of first sight on each side; times a placeholder; each
side's namespace and group a fixed word; a list's own resourceVersion and continue token
placeholders); of an error Status the code, status, reason and details (name, group, kind,
each cause's reason and field), not the message text; watches as their event types and
normalised objects. Headers are not compared. The Kubernetes dialect's words are mapped back
to the spec's before comparing.

A side starts with one of these; the side flags after it are its own:
  --endpoint URL              a running server
  --kubeconfig FILE           a running server, URL and credentials from a kubeconfig
  --reference memory|wal|etcd the reference server, started in this process: in memory, on a
                              write-ahead log in a temporary folder, or on a private etcd
                              (Debian's etcd-server) that both etcd sides share (one store)
  --kubernetes-assets DIR     a real kube-apiserver with its own etcd, started from DIR's
                              binaries (envtest layout; .xz binaries decompressed once into
                              .orch/); dialect kubernetes unless given
Side flags:
  --token TOKEN | --token-file FILE     bearer token
  --cert FILE --key FILE                client certificate and key (PEM)
  --ca FILE                             CA bundle (PEM)
  --insecure                            skip TLS verification
  --context NAME                        kubeconfig context
  --dialect orch|kubernetes             the side's words (default orch; kubernetes maps
                                        orch.io -> k8s.io, ... for a real cluster)
Options:
  --seed N          seed of the sequences (default random; printed, replay with it;
                    a negative one as --seed=-N)
  --ops N           operations to draw in all (default 1000; shrinking's are extra)
  --max-length N    longest sequence (default 25)
  --shrink-budget N sequences run at most while shrinking one difference (default 100)
  --max-divergences N  stop after this many kinds of difference (default 30)
  --report DIR      write diff.json, index.html and the reproducers there
                    (default out/diff)
  --expect FILE     name the divergences that are known departures of this expectations
                    file (default expectations/kubernetes-1.28.yaml when a side speaks
                    the kubernetes dialect)
  -h, --help        this text

Examples:
  orch-conformance diff --reference etcd --reference etcd --ops 10000
  orch-conformance diff --reference memory --kubernetes-assets ../shared/kubernetes-1.28/bin
  orch-conformance diff --endpoint https://a:6443 --token-file a.token --ca a.pem \\
      --kubeconfig ~/.kube/config --context kind --dialect kubernetes --seed 42
`;

const STARTERS = ['endpoint', 'kubeconfig', 'reference', 'kubernetes-assets'] as const;

export interface DiffArgs {
  sides: SideSpec[];
  seed: number;
  ops: number;
  maxLength: number;
  shrinkBudget: number;
  maxDivergences: number;
  report: string;
  expect?: string;
}

function count(v: string | undefined, flag: string, dflt: number, min = 1): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min)
    throw new Error(`${flag} takes a whole number of at least ${min}, not "${v}"`);
  return Number(v);
}

/** Parses the command line; `undefined` for --help. Throws on a usage error. */
export function parseDiffArgs(argv: string[]): DiffArgs | undefined {
  const { values, tokens } = parseArgs({
    args: argv,
    options: {
      endpoint: { type: 'string', multiple: true },
      kubeconfig: { type: 'string', multiple: true },
      reference: { type: 'string', multiple: true },
      'kubernetes-assets': { type: 'string', multiple: true },
      token: { type: 'string', multiple: true },
      'token-file': { type: 'string', multiple: true },
      cert: { type: 'string', multiple: true },
      key: { type: 'string', multiple: true },
      ca: { type: 'string', multiple: true },
      insecure: { type: 'boolean', multiple: true },
      context: { type: 'string', multiple: true },
      dialect: { type: 'string', multiple: true },
      seed: { type: 'string' },
      ops: { type: 'string' },
      'max-length': { type: 'string' },
      'shrink-budget': { type: 'string' },
      'max-divergences': { type: 'string' },
      report: { type: 'string' },
      expect: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
    tokens: true,
  });
  if (values.help) return undefined;
  const sides: SideSpec[] = [];
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const name = t.name;
    if ((STARTERS as readonly string[]).includes(name)) {
      const value = t.value ?? '';
      if (name === 'reference' && !REFERENCE_MODES.includes(value as ReferenceMode))
        throw new Error(`--reference takes ${REFERENCE_MODES.join(', ')}, not "${value}"`);
      if (name === 'kubernetes-assets' && !assetsDir(value))
        throw new Error(`--kubernetes-assets: ${HOW_TO_GET_ASSETS}`);
      sides.push({ from: name as SideSpec['from'], value, flags: {} });
      continue;
    }
    const side = sides[sides.length - 1];
    const flagsOfSide: Record<string, keyof SideSpec['flags']> = {
      token: 'token',
      'token-file': 'tokenFile',
      cert: 'cert',
      key: 'key',
      ca: 'ca',
      insecure: 'insecure',
      context: 'context',
      dialect: 'dialect',
    };
    const key = flagsOfSide[name];
    if (!key) continue;
    if (!side)
      throw new Error(
        `--${name} belongs to a side: give it after --endpoint, --kubeconfig, --reference or --kubernetes-assets`,
      );
    if (side.flags[key] !== undefined) throw new Error(`--${name} given twice for side ${sides.length}`);
    if (key === 'dialect' && t.value !== 'orch' && t.value !== 'kubernetes')
      throw new Error(`--dialect takes orch or kubernetes, not "${t.value}"`);
    (side.flags as Record<string, unknown>)[key] =
      key === 'insecure' ? true : (t.value as string | DialectName);
  }
  if (sides.length !== 2)
    throw new Error(
      `diff compares two sides; ${sides.length} given (each starts with --endpoint, --kubeconfig, --reference or --kubernetes-assets)`,
    );
  const seedText = values.seed;
  if (seedText !== undefined && !/^-?\d+$/.test(seedText))
    throw new Error(`--seed takes an integer, not "${seedText}"`);
  return {
    sides,
    seed: seedText !== undefined ? Number(seedText) | 0 : randomBytes(4).readInt32LE(0),
    ops: count(values.ops, '--ops', 1000),
    maxLength: count(values['max-length'], '--max-length', 25),
    shrinkBudget: count(values['shrink-budget'], '--shrink-budget', 100, 0),
    maxDivergences: count(values['max-divergences'], '--max-divergences', 30),
    report: values.report ?? join('out', 'diff'),
    ...(values.expect ? { expect: values.expect } : {}),
  };
}

const KUBERNETES_EXPECTATIONS = join(import.meta.dirname, '..', '..', 'expectations', 'kubernetes-1.28.yaml');

function summary(r: DiffResult, seconds: number, known: ExpectationFile): string {
  const lines = [
    `diff: ${r.opsDone} operations in ${r.sequences} sequences (+${r.shrinkSequences} while shrinking) in ${seconds.toFixed(1)} s, seed ${r.seed}`,
  ];
  if (!r.divergences.length) lines.push('diff: no divergence');
  for (const d of r.divergences) {
    const k = knownDepartures(known, d).map((x) => x.id);
    lines.push(
      `  DIVERGES ${d.signature} (shrunk from ${d.foundLength} to ${d.ops.length} operations)${k.length ? `: known departure ${k.join(', ')}` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function diff(argv: string[]): Promise<number> {
  let args: DiffArgs | undefined;
  try {
    args = parseDiffArgs(argv);
  } catch (e) {
    process.stderr.write(`orch-conformance diff: ${(e as Error).message}\n\n${DIFF_HELP}`);
    return 2;
  }
  if (!args) {
    process.stdout.write(DIFF_HELP);
    return 0;
  }
  const runId = randomBytes(3).toString('hex');
  process.stderr.write(`diff: seed ${args.seed} (replay with --seed=${args.seed}), run ${runId}\n`);
  const logLines: string[] = [];
  const { sides, close } = await startSides(args.sides, (l) => {
    logLines.push(l);
    if (logLines.length > 2000) logLines.shift();
  }).catch((e: Error) => {
    process.stderr.write(`orch-conformance diff: ${e.message}\n`);
    return { sides: undefined, close: async () => undefined };
  });
  if (!sides) return 2;
  try {
    for (const [i, s] of sides.entries())
      process.stderr.write(`diff: side ${i === 0 ? 'A' : 'B'}: ${s.about}\n`);
    const result = await runDiff([sides[0]!.target, sides[1]!.target], {
      seed: args.seed,
      ops: args.ops,
      maxLength: args.maxLength,
      shrinkBudget: args.shrinkBudget,
      maxDivergences: args.maxDivergences,
      runId,
      progress: (p) =>
        process.stderr.write(
          `diff: ${p.opsDone}/${p.opsTotal} operations, ${p.sequences} sequences, ${p.divergences} divergences${p.shrinking ? `; shrinking ${p.shrinking}` : ''}\n`,
        ),
    });
    const kubernetes = sides.some((s) => s.target.dialect === 'kubernetes');
    const known = loadExpectations(args.expect ?? (kubernetes ? KUBERNETES_EXPECTATIONS : undefined));
    const files = writeReport(args.report, result, sides, known);
    process.stdout.write(summary(result, result.elapsedMs / 1000, known));
    process.stdout.write(`diff: report ${files.html} (${files.json})\n`);
    return result.divergences.length ? 1 : 0;
  } finally {
    await close();
  }
}
