// The differential run: seeded sequences of operations (fast-check), each run against both
// sides in namespaces of its own, the answers normalised and compared operation by operation.
// The first sequence showing a new kind of difference is shrunk (fast-check) to the shortest
// one that still shows it; that kind is then known, and the search goes on with the operations
// left, so that every kind of difference found is reported once, with its shrunk sequence.
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { Client } from '../../harness/src/client.ts';
import type { Target } from '../../harness/src/target.ts';
import { compareResults, type Difference } from './compare.ts';
import { type DiffSide, makeNamespace, type OpResult, runOp, wireRequest } from './execute.ts';
import { type NormalResult, normaliseContext, normaliseResults } from './normalise.ts';
import { type Op, opLabel, sequenceArb } from './ops.ts';
import type { WireRequest } from './repro.ts';
import { collectionPath, newContext, type PlannedRequest, WIDGET } from './requests.ts';

export interface DiffOptions {
  seed: number;
  /** Operations to draw in all (shrinking's runs not counted). */
  ops: number;
  /** The longest sequence. */
  maxLength: number;
  /** At most this many sequences run while shrinking one divergence. */
  shrinkBudget: number;
  /** Stop after this many kinds of difference. */
  maxDivergences: number;
  /** A word unique to this run: namespaces and groups carry it. */
  runId: string;
  progress?: (p: Progress) => void;
}

export interface Progress {
  opsDone: number;
  opsTotal: number;
  sequences: number;
  divergences: number;
  shrinking?: string;
}

export interface SideAnswer {
  /** Every request of the shrunk sequence on this side, setup included, in order. */
  requests: WireRequest[];
  results: NormalResult[];
}

export interface Divergence {
  signature: string;
  /** The shrunk sequence. */
  ops: Op[];
  labels: string[];
  /** The operation whose answers differ first. */
  index: number;
  paths: string[];
  /** The seed of the round that found it and the length of the sequence before shrinking. */
  roundSeed: number;
  foundLength: number;
  a: SideAnswer;
  b: SideAnswer;
}

export interface DiffResult {
  seed: number;
  opsDone: number;
  sequences: number;
  shrinkSequences: number;
  elapsedMs: number;
  divergences: Divergence[];
}

interface SequenceOutcome {
  ops: Op[];
  difference?: Difference;
  a: SideAnswer;
  b: SideAnswer;
}

/** The run's custom resource definition in `group` (spec words). */
export function definitionRequest(group: string): PlannedRequest {
  return {
    method: 'POST',
    path: '/apis/apiextensions.orch.io/v1/customresourcedefinitions',
    query: {},
    body: {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${WIDGET.plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: {
          plural: WIDGET.plural,
          singular: 'widget',
          kind: WIDGET.kind,
          listKind: `${WIDGET.kind}List`,
        },
        versions: [
          {
            name: WIDGET.version,
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { data: { type: 'object', additionalProperties: { type: 'string' } } },
              },
            },
          },
        ],
      },
    },
  };
}

/** Makes the side's custom resource definition and waits until its resources are served. */
async function setupSide(side: DiffSide): Promise<WireRequest> {
  const r = definitionRequest(side.group);
  const request = wireRequest(side.client, r);
  const res = await side.client.request({ method: r.method, path: r.path, body: r.body });
  if (res.status !== 201)
    throw new Error(`${side.label}: creating the custom resource definition: ${res.describe()}`);
  const path = collectionPath(newContext('default', side.group), 'widgets');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const g = await side.client.get(path, { retryUnavailable: true });
    if (g.status === 200) return request;
    if (Date.now() > deadline)
      throw new Error(`${side.label}: ${path} not served 60 s after its definition: ${g.describe()}`);
    await sleep(200);
  }
}

/** Runs a differential comparison between two targets. */
export async function runDiff(targets: [Target, Target], o: DiffOptions): Promise<DiffResult> {
  const started = Date.now();
  const sides = targets.map(
    (t, i): DiffSide => ({
      label: i === 0 ? 'A' : 'B',
      client: new Client(t),
      group: `${i === 0 ? 'a' : 'b'}${o.runId}.diff.example.com`,
    }),
  ) as [DiffSide, DiffSide];
  try {
    const setup = await Promise.all(sides.map(setupSide));
    let sequenceNo = 0;
    const namespaces: string[][] = [[], []];

    const runSequence = async (ops: Op[]): Promise<SequenceOutcome> => {
      const n = ++sequenceNo;
      const names = sides.map((s) => `diff-${o.runId}-${n}-${s.label.toLowerCase()}`);
      const made = await Promise.all(sides.map((s, i) => makeNamespace(s, names[i]!)));
      for (const [i, n] of names.entries()) namespaces[i]!.push(n);
      const norm = sides.map((s, i) => normaliseContext(names[i]!, s.group));
      const answers: SideAnswer[] = made.map((m, i) => ({ requests: [setup[i]!, m.setup], results: [] }));
      for (let k = 0; k < ops.length; k++) {
        const op = ops[k]!;
        const results = await Promise.all(
          sides.map((s, i) =>
            runOp(s, made[i]!.context, op).catch(
              (e): OpResult => ({
                exchanges: [],
                skipped: `no answer (${(e as Error).message.split('(')[0]?.trim()})`,
              }),
            ),
          ),
        );
        results.forEach((r, i) => {
          answers[i]!.requests.push(...r.exchanges.map((x) => x.request));
          answers[i]!.results.push(...normaliseResults(norm[i]!, [r]));
        });
        const difference = compareResults(ops.slice(0, k + 1), answers[0]!.results, answers[1]!.results);
        if (difference) return { ops: ops.slice(0, k + 1), difference, a: answers[0]!, b: answers[1]! };
      }
      return { ops, a: answers[0]!, b: answers[1]! };
    };

    const known = new Set<string>();
    const divergences: Divergence[] = [];
    let opsDone = 0;
    let sequences = 0;
    let shrinkSequences = 0;
    const report = (shrinking?: string) =>
      o.progress?.({ opsDone, opsTotal: o.ops, sequences, divergences: divergences.length, shrinking });
    for (let round = 0; opsDone < o.ops && divergences.length < o.maxDivergences; round++) {
      const roundSeed = (o.seed + round) | 0;
      let target: string | undefined;
      let last: SequenceOutcome | undefined;
      let foundLength = 0;
      let shrinkRuns = 0;
      const property = fc.asyncProperty(sequenceArb(o.maxLength), async (ops) => {
        if (target === undefined) {
          if (opsDone >= o.ops) return true;
          opsDone += ops.length;
          sequences++;
          if (sequences % 20 === 0) report();
        } else {
          if (shrinkRuns >= o.shrinkBudget) return true;
          shrinkRuns++;
          shrinkSequences++;
        }
        const r = await runSequence(ops);
        if (!r.difference) return true;
        if (target === undefined) {
          if (known.has(r.difference.signature)) return true;
          target = r.difference.signature;
          foundLength = ops.length;
          last = r;
          report(target);
          return false;
        }
        if (r.difference.signature !== target) return true;
        last = r;
        return false;
      });
      const numRuns = Math.max(1, Math.ceil((o.ops - opsDone) / ((o.maxLength + 1) / 2)));
      const out = await fc.check(property, { seed: roundSeed, numRuns });
      if (out.failed && last?.difference && target) {
        known.add(target);
        divergences.push({
          signature: target,
          ops: last.ops,
          labels: last.ops.map(opLabel),
          index: last.difference.index,
          paths: last.difference.paths,
          roundSeed,
          foundLength,
          a: last.a,
          b: last.b,
        });
        report();
      } else if (out.failed && out.errorInstance) throw out.errorInstance;
    }
    report();
    await cleanUp(sides, namespaces);
    return {
      seed: o.seed,
      opsDone,
      sequences,
      shrinkSequences,
      elapsedMs: Date.now() - started,
      divergences,
    };
  } finally {
    await Promise.all(sides.map((s) => s.client.close()));
  }
}

/** Deletes the run's namespaces and definitions (best effort: a cluster's controllers finish it). */
async function cleanUp(sides: DiffSide[], namespaces: string[][]): Promise<void> {
  await Promise.all(
    sides.map(async (s, i) => {
      const names = namespaces[i]!;
      for (let k = 0; k < names.length; k += 16)
        await Promise.all(
          names
            .slice(k, k + 16)
            .map((n) => s.client.delete(`/api/v1/namespaces/${n}`).catch(() => undefined)),
        );
      await s.client
        .delete(`/apis/apiextensions.orch.io/v1/customresourcedefinitions/${WIDGET.plural}.${s.group}`)
        .catch(() => undefined);
    }),
  );
}
