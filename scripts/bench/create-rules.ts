// CREATE with validation rules: a custom resource with 10 CEL rules against the same without.
import type { AutocannonRequest, Options } from 'autocannon';
import { call, ensureNamespace, must } from './http.ts';
import { type CompareOpts, type Comparison, type Load, load, sleep } from './measure.ts';
import type { ServerProc } from './process.ts';

/** The schema of the benchmark's custom resource; `rules`: its 10 validation rules, or none. */
function ruleBenchSchema(rules: boolean): Record<string, unknown> {
  const v = (rule: string) => (rules ? { 'x-orch-validations': [{ rule }] } : {});
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        ...(rules
          ? {
              'x-orch-validations': [
                { rule: 'self.minReplicas <= self.maxReplicas', message: 'min above max' },
                { rule: "self.image.startsWith('registry.example/')" },
                { rule: "self.image.matches('^[a-z0-9./-]+:[0-9.]+$')" },
                { rule: 'self.ports.all(p, p.port > 0 && p.port < 65536)' },
                { rule: 'self.ports.map(p, p.name).size() == self.ports.size()' },
                { rule: "!has(self.mode) || self.mode in ['fast', 'safe']" },
                { rule: "self.labels.all(k, k.size() <= 63 && !k.startsWith('orch.io/'))" },
                { rule: "self.timeout <= duration('1h')" },
              ],
            }
          : {}),
        properties: {
          minReplicas: { type: 'integer', ...v('self >= 0') },
          maxReplicas: { type: 'integer', ...v('self <= 100') },
          image: { type: 'string', maxLength: 256 },
          mode: { type: 'string', maxLength: 16 },
          timeout: { type: 'string', format: 'duration' },
          labels: {
            type: 'object',
            maxProperties: 16,
            additionalProperties: { type: 'string', maxLength: 63 },
          },
          ports: {
            type: 'array',
            maxItems: 16,
            items: {
              type: 'object',
              properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } },
            },
          },
        },
      },
    },
  };
}

async function establishRuleBench(s: ServerProc, group: string, rules: boolean): Promise<string> {
  const name = `widgets.${group}`;
  await must(
    call(s, 'POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: ruleBenchSchema(rules) } },
        ],
      },
    }),
    201,
  );
  const path = `/apis/${group}/v1/namespaces/rules/widgets`;
  for (let i = 0; i < 200; i++) {
    if ((await call(s, 'GET', path)).status === 200) return path;
    await sleep(50);
  }
  throw new Error(`${name} not served`);
}

function widgetBody(group: string, name: string, i: number): string {
  return JSON.stringify({
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name, labels: { app: 'bench' } },
    spec: {
      minReplicas: 1,
      maxReplicas: 3 + (i % 5),
      image: `registry.example/app:1.${i % 100}`,
      mode: 'fast',
      timeout: '30s',
      labels: { team: 'a', tier: 'web' },
      ports: [
        { name: 'http', port: 8080 },
        { name: 'metrics', port: 9090 },
      ],
    },
  });
}

/**
 * Creates per second of a custom resource whose definition has 10 validation rules, against
 * the same definition without rules, on one in-memory server in the same run (alternating
 * rounds, best of each side): the ratio is what evaluating the rules costs a create.
 */
export async function benchCreateRules(s: ServerProc, o: CompareOpts): Promise<Comparison> {
  await ensureNamespace(s, 'rules');
  const run = Date.now().toString(36);
  const withRules = `r${run}.rules.example.com`;
  const without = `n${run}.rules.example.com`;
  const paths = {
    rules: await establishRuleBench(s, withRules, true),
    none: await establishRuleBench(s, without, false),
  };
  const probe = await must(call(s, 'POST', paths.rules, widgetBody(withRules, 'probe', 0)), 201);
  // the rules run: an object that breaks one is refused
  const bad = JSON.parse(widgetBody(withRules, 'bad', 0));
  bad.spec.minReplicas = 50;
  await must(call(s, 'POST', paths.rules, bad), 422);
  let n = 0;
  const mk = (side: 'rules' | 'none'): Options => ({
    url: s.url,
    connections: o.connections,
    requests: [
      {
        method: 'POST',
        path: paths[side],
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        setupRequest: (req: AutocannonRequest) => {
          const i = n++;
          return { ...req, body: widgetBody(side === 'rules' ? withRules : without, `w-${i}`, i) };
        },
      },
    ],
  });
  const best: Record<'rules' | 'none', Load | undefined> = { rules: undefined, none: undefined };
  if (o.warmup > 0)
    for (const side of ['rules', 'none'] as const) await load({ ...mk(side), duration: o.warmup });
  for (let round = 0; round < o.rounds; round++) {
    for (const side of round % 2 ? (['none', 'rules'] as const) : (['rules', 'none'] as const)) {
      const r = await load({ ...mk(side), duration: o.duration }, s);
      if (r.errors || r.non2xx)
        throw new Error(
          `CREATE with rules (${side}): ${r.errors} errors, ${r.non2xx} non-2xx of ${r.requests}`,
        );
      if (!best[side] || r.rps > best[side]!.rps) best[side] = r;
    }
  }
  return {
    name: 'CREATE custom resource, 10 rules vs none (in-memory)',
    orch: best.rules!,
    bare: best.none!,
    ratio: best.rules!.rps / best.none!.rps,
    bytes: probe.body.length,
    connections: o.connections,
  };
}
