// GET /metrics: the Prometheus text format behind authorization (the non-resource URL
// /metrics, granted to system:monitoring), the request metrics moving with requests, the
// deprecated-API gauge, the metric life cycle of doc2 (deprecation prefix, hiding, the
// --show-hidden-metrics-for-version flag), and every metric a 1.28 server also exposes having
// its type and label names (metrics.json). kubectl get --raw /metrics reads it too.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticTokenAuthenticator } from '../src/authentication/token-file.ts';
import { parseServeArgs, SERVE_USAGE, UsageError } from '../src/cli.ts';
import { ConfigurationError } from '../src/errors/config-error.ts';
import { build } from '../src/index.ts';
import { writeKubeconfig } from '../src/kubeconfig.ts';
import type { MetricDescriptor } from '../src/metrics/catalog.ts';
import {
  describe as describeMetric,
  isDeprecated,
  isHiddenAt,
  isShown,
  showHiddenProblem,
} from '../src/metrics/lifecycle.ts';
import { MetricsRegistry } from '../src/metrics/registry.ts';
import { ALL_VERBS } from '../src/registry/kinds/common.ts';
import type { ResourceDef } from '../src/registry/types.ts';
import { readFact } from './k8s-facts.ts';
import { findKubectl, kubectlMissing } from './kubectl-bin.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';

// ------------------------------------------------------------------ the text format, parsed

interface Family {
  type: string;
  help: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

function parseExposition(text: string): Map<string, Family> {
  const out = new Map<string, Family>();
  const family = (name: string) => {
    let f = out.get(name);
    if (!f) out.set(name, (f = { type: '', help: '', samples: [] }));
    return f;
  };
  const owner = (sample: string) => {
    for (const suffix of ['_bucket', '_sum', '_count', '']) {
      const base = suffix && sample.endsWith(suffix) ? sample.slice(0, -suffix.length) : sample;
      if (out.get(base)?.type) return base;
    }
    return sample;
  };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let m = /^# HELP (\S+) (.*)$/.exec(line);
    if (m) {
      family(m[1]!).help = m[2]!;
      continue;
    }
    m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) {
      family(m[1]!).type = m[2]!;
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a line of the text format: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!;
    family(owner(m[1]!)).samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `want` (0 when there is none). */
function sample(fams: Map<string, Family>, name: string, want: Record<string, string>): number {
  const fam = fams.get(name.replace(/_(bucket|sum|count)$/, '')) ?? fams.get(name);
  const hits = (fam?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v),
  );
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(want)}`);
  return hits[0]?.value ?? 0;
}

async function scrape(ts: TestServer): Promise<Map<string, Family>> {
  const r = await ts.req('GET', '/metrics');
  expect(r.status, r.text).toBe(200);
  return parseExposition(r.text);
}

// ------------------------------------------------------------------ the life cycle rules

const d = (stability: MetricDescriptor['stability'], deprecatedVersion?: string) => ({
  stability,
  deprecatedVersion,
  help: 'h',
});

describe('metric life cycle (doc2 rules 9a/9b and the metric paragraph)', () => {
  it('a STABLE metric deprecated in x.y is shown until x.y+3, where it is hidden', () => {
    expect(isHiddenAt(d('STABLE', '1.28'), '1.28')).toBe(false);
    expect(isHiddenAt(d('STABLE', '1.26'), '1.28')).toBe(false);
    expect(isHiddenAt(d('STABLE', '1.25'), '1.28')).toBe(true); // current minus 3
    expect(isHiddenAt(d('STABLE', '1.20'), '1.28')).toBe(true);
    expect(isHiddenAt(d('STABLE', '1.25'), '1.27')).toBe(false);
  });

  it('BETA and ALPHA metrics are hidden the release after their deprecation (1.28 still shows its own ALPHA deprecations)', () => {
    expect(isHiddenAt(d('BETA', '1.28'), '1.28')).toBe(false);
    expect(isHiddenAt(d('BETA', '1.27'), '1.28')).toBe(true);
    expect(isHiddenAt(d('ALPHA', '1.28'), '1.28')).toBe(false);
    expect(isHiddenAt(d('ALPHA', '1.27'), '1.28')).toBe(true);
  });

  it('a metric never deprecated, or deprecated from a later release, is neither deprecated nor hidden', () => {
    for (const level of ['ALPHA', 'BETA', 'STABLE'] as const) {
      expect(isDeprecated(d(level), '1.28')).toBe(false);
      expect(isHiddenAt(d(level), '1.28')).toBe(false);
      expect(isDeprecated(d(level, '1.30'), '1.28')).toBe(false);
      expect(isHiddenAt(d(level, '1.30'), '1.28')).toBe(false);
      expect(describeMetric({ ...d(level, '1.30'), help: 'Counts.' }, '1.28')).toBe(`[${level}] Counts.`);
    }
  });

  it("a deprecated metric's description starts '(Deprecated from x.y)'", () => {
    expect(describeMetric({ ...d('STABLE', '1.27'), help: 'Counts.' }, '1.28')).toBe(
      '(Deprecated from 1.27) [STABLE] Counts.',
    );
    expect(describeMetric({ ...d('ALPHA', '1.28.0'), help: 'Counts.' }, '1.28')).toBe(
      '(Deprecated from 1.28) [ALPHA] Counts.',
    );
  });

  it('the flag shows what the previous release still showed, and nothing hidden before it', () => {
    // hidden in 1.28, shown in 1.27: back with the flag
    expect(isShown(d('STABLE', '1.25'), '1.28')).toBe(false);
    expect(isShown(d('STABLE', '1.25'), '1.28', '1.27')).toBe(true);
    expect(isShown(d('ALPHA', '1.27'), '1.28', '1.27')).toBe(true);
    expect(isShown(d('BETA', '1.27'), '1.28', '1.27')).toBe(true);
    // hidden in 1.27 already (deleted after one release): not brought back
    expect(isShown(d('STABLE', '1.24'), '1.28', '1.27')).toBe(false);
    expect(isShown(d('ALPHA', '1.26'), '1.28', '1.27')).toBe(false);
    // shown anyway
    expect(isShown(d('STABLE', '1.26'), '1.28')).toBe(true);
  });

  it('--show-hidden-metrics-for-version accepts only the previous minor release', () => {
    expect(showHiddenProblem(undefined, '1.28')).toBeUndefined();
    expect(showHiddenProblem('', '1.28')).toBeUndefined();
    expect(showHiddenProblem('1.27', '1.28')).toBeUndefined();
    for (const bad of ['1.26', '1.28', '1.29', '1.27.0', 'v1.27', '2.27', 'x', ' 1.27'])
      expect(showHiddenProblem(bad, '1.28'), bad).toMatch(
        /^--show-hidden-metrics-for-version must be omitted or have the value '1\.27'\. Only the previous minor version is allowed/,
      );
    expect(showHiddenProblem('1.29', '1.30')).toBeUndefined();
  });

  it('the registry: hidden metrics are not registered and counted; a deprecated one logs nothing, unless the hiding is overridden', async () => {
    const warnings: string[] = [];
    const reg = new MetricsRegistry({ release: '1.28', warn: (m) => warnings.push(m) });
    const desc = (
      name: string,
      stability: MetricDescriptor['stability'],
      deprecatedVersion?: string,
    ): MetricDescriptor => ({
      name,
      help: 'Test metric.',
      type: 'gauge',
      labels: ['x'],
      stability,
      deprecatedVersion,
    });
    expect(reg.gauge(desc('test_current', 'STABLE'), (emit) => emit(['a'], 1))).toBe(true);
    expect(reg.gauge(desc('test_deprecated', 'STABLE', '1.26'), (emit) => emit(['a'], 2))).toBe(true);
    expect(reg.gauge(desc('test_hidden', 'STABLE', '1.25'), (emit) => emit(['a'], 3))).toBe(false);
    expect(reg.gauge(desc('test_alpha_hidden', 'ALPHA', '1.27'), (emit) => emit(['a'], 4))).toBe(false);
    // Kubernetes 1.28 registers a deprecated metric without a word (component-base metric.go)
    expect(warnings).toEqual([]);
    const fams = parseExposition(await reg.text());
    expect(fams.get('test_current')?.help).toBe('[STABLE] Test metric.');
    expect(fams.get('test_deprecated')?.help).toBe('(Deprecated from 1.26) [STABLE] Test metric.');
    expect(fams.has('test_hidden')).toBe(false);
    expect(fams.has('test_alpha_hidden')).toBe(false);
    expect(sample(fams, 'hidden_metrics_total', {})).toBe(2);
    expect(
      sample(fams, 'registered_metrics_total', { stability_level: 'STABLE', deprecated_version: '1.26' }),
    ).toBe(1);
    expect(
      sample(fams, 'registered_metrics_total', { stability_level: 'STABLE', deprecated_version: '' }),
    ).toBe(1);

    const shown = new MetricsRegistry({
      release: '1.28',
      showHiddenFor: '1.27',
      warn: (m) => warnings.push(m),
    });
    expect(shown.gauge(desc('test_hidden', 'STABLE', '1.25'), (emit) => emit(['a'], 3))).toBe(true);
    expect(shown.gauge(desc('test_alpha_hidden', 'ALPHA', '1.27'), (emit) => emit(['a'], 4))).toBe(true);
    expect(shown.gauge(desc('test_long_gone', 'STABLE', '1.24'), (emit) => emit(['a'], 5))).toBe(false);
    expect(shown.gauge(desc('test_deprecated', 'STABLE', '1.26'), (emit) => emit(['a'], 2))).toBe(true);
    // with the hiding overridden, each deprecated metric shown is named once
    expect(warnings).toEqual(
      ['test_hidden', 'test_alpha_hidden', 'test_deprecated'].map(
        (n) => `Hidden metrics (${n}) have been manually overridden, showing this very deprecated metric.`,
      ),
    );
    const f2 = parseExposition(await shown.text());
    expect(f2.get('test_hidden')?.help).toBe('(Deprecated from 1.25) [STABLE] Test metric.');
    expect(sample(f2, 'test_hidden', { x: 'a' })).toBe(3);
    expect(sample(f2, 'hidden_metrics_total', {})).toBe(1);

    expect(() => new MetricsRegistry({ release: '1.28', showHiddenFor: '1.26' })).toThrow(
      /only the previous minor version/i,
    );
  });
});

// ------------------------------------------------------------------ the server

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

describe('GET /metrics on the reference server', () => {
  let ts: TestServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'orch-metrics-'));
    // the durable store: its size is a metric too
    ts = await startServer({ inMemory: false, dataDir, fsync: false });
  });
  afterAll(async () => {
    await ts?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the Prometheus text format (version 0.0.4)', async () => {
    const r = await ts.req('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const fams = parseExposition(r.text);
    for (const name of [
      'apiserver_request_total',
      'apiserver_request_duration_seconds',
      'apiserver_response_sizes',
      'apiserver_current_inflight_requests',
      'apiserver_longrunning_requests',
      'apiserver_requested_deprecated_apis',
      'apiserver_storage_objects',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
    ])
      expect(fams.has(name), name).toBe(true);
    expect(fams.get('apiserver_request_total')!.type).toBe('counter');
    expect(fams.get('apiserver_request_duration_seconds')!.type).toBe('histogram');
    // the root path list names it, as Kubernetes' does
    expect((await ts.req('GET', '/')).json.paths).toContain('/metrics');
  });

  it('the request counter, latency and size histograms move with requests, labelled as Kubernetes does', async () => {
    const ns = uniqueName('m');
    await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const list = {
      code: '200',
      verb: 'LIST',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      subresource: '',
      scope: 'namespace',
      component: 'apiserver',
      dry_run: '',
    };
    const create = { ...list, code: '201', verb: 'POST', scope: 'resource' };
    const dryCreate = { ...create, dry_run: 'All' };
    const get = { ...list, verb: 'GET', scope: 'resource' };
    const before = await scrape(ts);
    const listBytes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps`);
      expect(r.status).toBe(200);
      listBytes.push(r.body.length);
    }
    expect(
      (await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'a' } })).status,
    ).toBe(201);
    expect(
      (await ts.req('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { metadata: { name: 'b' } }))
        .status,
    ).toBe(201);
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/a`)).status).toBe(200);
    expect((await ts.req('GET', `/api/v1/namespaces/${ns}/configmaps/missing`)).status).toBe(404);
    const after = await scrape(ts);
    const moved = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('apiserver_request_total', list)).toBe(3);
    expect(moved('apiserver_request_total', create)).toBe(1);
    expect(moved('apiserver_request_total', dryCreate)).toBe(1);
    expect(moved('apiserver_request_total', get)).toBe(1);
    expect(moved('apiserver_request_total', { ...get, code: '404' })).toBe(1);
    const { code: _c, ...listSeries } = list;
    expect(moved('apiserver_request_duration_seconds_count', listSeries)).toBe(3);
    expect(moved('apiserver_request_duration_seconds_bucket', { ...listSeries, le: '+Inf' })).toBe(3);
    expect(moved('apiserver_request_duration_seconds_bucket', { ...listSeries, le: '60' })).toBe(3);
    const { dry_run: _d, ...sizeSeries } = listSeries;
    expect(moved('apiserver_response_sizes_count', sizeSeries)).toBe(3);
    // 1.28's size buckets: 100, 1000, ... 1e9 bytes (cumulative); the bodies the client received
    expect(moved('apiserver_response_sizes_sum', sizeSeries)).toBe(
      listBytes[0]! + listBytes[1]! + listBytes[2]!,
    );
    const bounds = [100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];
    const fits = bounds.findIndex((b) => listBytes[0]! <= b);
    expect(moved('apiserver_response_sizes_bucket', { ...sizeSeries, le: String(bounds[fits]) })).toBe(3);
    if (fits > 0)
      expect(moved('apiserver_response_sizes_bucket', { ...sizeSeries, le: String(bounds[fits - 1]) })).toBe(
        0,
      );
    // sizes are recorded for reads only
    const { code: _c2, dry_run: _d2, ...createSeries } = create;
    expect(sample(after, 'apiserver_response_sizes_count', createSeries)).toBe(0);
    expect(sample(after, 'apiserver_request_sli_duration_seconds_count', createSeries)).toBeGreaterThan(0);
    expect(moved('apiserver_storage_objects', { resource: 'configmaps' })).toBe(1);
  });

  it('paths that name nothing are not labels (the label set stays bounded)', async () => {
    const junk = `/zz-${uniqueName()}`;
    expect((await ts.req('GET', junk)).status).toBe(404);
    expect((await ts.req('GET', `/apis/nothing.example.com/v1/${uniqueName()}`)).status).toBe(404);
    const r = await ts.req('GET', '/metrics');
    expect(r.text).not.toContain(junk);
    expect(r.text).not.toContain('nothing.example.com');
    const fams = parseExposition(r.text);
    expect(
      sample(fams, 'apiserver_request_total', {
        code: '200',
        verb: 'GET',
        subresource: '/metrics',
        scope: '',
      }),
    ).toBeGreaterThan(0);
  });

  it('a watch is long-running while it lasts', async () => {
    const ns = uniqueName('w');
    await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const labels = {
      verb: 'WATCH',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      subresource: '',
      scope: 'namespace',
      component: 'apiserver',
    };
    const ac = new AbortController();
    const { request } = await import('undici');
    const watch = await request(`${ts.url}/api/v1/namespaces/${ns}/configmaps?watch=true`, {
      headers: { authorization: `Bearer ${ts.token}` },
      signal: ac.signal,
    });
    expect(watch.statusCode).toBe(200);
    expect(sample(await scrape(ts), 'apiserver_longrunning_requests', labels)).toBe(1);
    ac.abort();
    await watch.body.text().catch(() => {});
    for (let i = 0; i < 100 && sample(await scrape(ts), 'apiserver_longrunning_requests', labels) !== 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    const fams = await scrape(ts);
    expect(sample(fams, 'apiserver_longrunning_requests', labels)).toBe(0);
    expect(sample(fams, 'apiserver_request_duration_seconds_count', { ...labels, dry_run: '' })).toBe(1);
  });

  it('a request to a deprecated custom version sets apiserver_requested_deprecated_apis to 1 with its labels', async () => {
    const group = `m${process.pid}.example.com`;
    const crd = {
      apiVersion: 'apiextensions.orch.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
          },
          {
            name: 'v1beta1',
            served: true,
            storage: false,
            deprecated: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
          },
          {
            name: 'v1alpha1',
            served: true,
            storage: false,
            deprecated: true,
            deprecationWarning: 'gadgets of v1alpha1 go away; move to v1',
            schema: { openAPIV3Schema: { type: 'object', 'x-orch-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect((await ts.req('POST', CRDS, crd)).status).toBe(201);
    let r = await ts.req('GET', `/apis/${group}/v1beta1/namespaces/default/gadgets`);
    for (let i = 0; i < 200 && r.status === 404; i++) {
      await new Promise((res) => setTimeout(res, 20));
      r = await ts.req('GET', `/apis/${group}/v1beta1/namespaces/default/gadgets`);
    }
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBe(`299 - "${group}/v1beta1 Gadget is deprecated; use ${group}/v1 Gadget"`);
    const own = await ts.req('GET', `/apis/${group}/v1alpha1/namespaces/default/gadgets`);
    expect(own.headers.warning).toBe('299 - "gadgets of v1alpha1 go away; move to v1"');
    const current = await ts.req('GET', `/apis/${group}/v1/namespaces/default/gadgets`);
    expect(current.status).toBe(200);
    expect(current.headers.warning).toBeUndefined();
    const fams = await scrape(ts);
    const gauge = fams.get('apiserver_requested_deprecated_apis')!;
    expect(gauge.type).toBe('gauge');
    const mine = gauge.samples
      .filter((s) => s.labels.group === group)
      .sort((a, b) => a.labels.version!.localeCompare(b.labels.version!));
    expect(mine).toEqual(
      ['v1alpha1', 'v1beta1'].map((version) => ({
        name: 'apiserver_requested_deprecated_apis',
        labels: { group, removed_release: '', resource: 'gadgets', subresource: '', version },
        value: 1,
      })),
    );
  });

  it('a deprecated version with a removal release: removed_release names it; the subresource is a label', async () => {
    const group = 'gauges.test.orch.io';
    const def: ResourceDef = {
      group,
      versions: ['v1', 'v1beta1'],
      kind: 'Meter',
      listKind: 'MeterList',
      plural: 'meters',
      singular: 'meter',
      namespaced: true,
      verbs: ALL_VERBS,
      subresources: ['status'],
      strategy: { allowUnconditionalUpdate: true },
      versionInfo: {
        v1: { served: true, storage: true },
        v1beta1: {
          served: true,
          storage: false,
          deprecated: true,
          deprecatedIn: '1.27',
          removedIn: '1.30',
          replacement: `${group}/v1 Meter`,
        },
      },
    };
    ts.server.registry.add(def);
    const base = `/apis/${group}/v1beta1/namespaces/default/meters`;
    expect(
      (
        await ts.req('POST', base, {
          apiVersion: `${group}/v1beta1`,
          kind: 'Meter',
          metadata: { name: 'm1' },
        })
      ).status,
    ).toBe(201);
    const status = await ts.req('GET', `${base}/m1/status`);
    expect(status.status).toBe(200);
    expect(status.headers.warning).toBe(
      `299 - "${group}/v1beta1 Meter is deprecated in v1.27+, unavailable in v1.30+; use ${group}/v1 Meter"`,
    );
    expect((await ts.req('GET', `/apis/${group}/v1/namespaces/default/meters/m1`)).status).toBe(200);
    const fams = await scrape(ts);
    const mine = fams
      .get('apiserver_requested_deprecated_apis')!
      .samples.filter((x) => x.labels.group === group);
    expect(mine.map((x) => x.labels).sort((a, b) => a.subresource!.localeCompare(b.subresource!))).toEqual([
      { group, removed_release: '1.30', resource: 'meters', subresource: '', version: 'v1beta1' },
      { group, removed_release: '1.30', resource: 'meters', subresource: 'status', version: 'v1beta1' },
    ]);
    expect(mine.every((x) => x.value === 1)).toBe(true);
    expect(
      sample(fams, 'apiserver_request_total', {
        group,
        version: 'v1beta1',
        resource: 'meters',
        subresource: 'status',
        verb: 'GET',
        code: '200',
      }),
    ).toBe(1);
  });

  it('every metric a 1.28 server also exposes has its type and label names (metrics.json)', async () => {
    const facts = readFact('metrics.json') as Record<string, { type: string; labels: string[] }>;
    const fams = await scrape(ts);
    const common = [...fams.keys()].filter((n) => facts[n]);
    // the request, storage, life-cycle and process metrics at least
    for (const name of [
      'apiserver_request_total',
      'apiserver_request_duration_seconds',
      'apiserver_request_sli_duration_seconds',
      'apiserver_response_sizes',
      'apiserver_current_inflight_requests',
      'apiserver_longrunning_requests',
      'apiserver_requested_deprecated_apis',
      'apiserver_storage_objects',
      'apiserver_storage_db_total_size_in_bytes',
      'apiserver_storage_size_bytes',
      'kubernetes_build_info',
      'registered_metrics_total',
      'hidden_metrics_total',
      'process_cpu_seconds_total',
      'process_open_fds',
      'process_max_fds',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'process_virtual_memory_bytes',
    ])
      expect(common, name).toContain(name);
    for (const name of common) {
      const fam = fams.get(name)!;
      expect(fam.type, `${name} type`).toBe(facts[name]!.type);
      // label names from the samples themselves (each of these metrics has some by now)
      expect(fam.samples.length, `${name} has samples`).toBeGreaterThan(0);
      const labels = new Set(fam.samples.flatMap((s) => Object.keys(s.labels)));
      expect([...labels].sort(), `${name} labels`).toEqual([...facts[name]!.labels].sort());
    }
  });

  it('1.28 hides apiserver_request_slo_duration_seconds (deprecated in 1.27) and describes apiserver_storage_db_total_size_in_bytes as deprecated', async () => {
    const fams = await scrape(ts);
    expect(fams.has('apiserver_request_slo_duration_seconds')).toBe(false);
    expect(fams.get('apiserver_storage_db_total_size_in_bytes')!.help).toMatch(/^\(Deprecated from 1\.28\) /);
    expect(fams.get('apiserver_request_total')!.help).toMatch(/^\[STABLE\] /);
    expect(sample(fams, 'hidden_metrics_total', {})).toBe(1);
  });

  it('anonymous and unauthorized users get 403; system:monitoring may read it', async () => {
    const anonymous = await ts.req('GET', '/metrics', undefined, { authorization: '' });
    expect(anonymous.status).toBe(403);
    expect(anonymous.json).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(anonymous.json.message).toContain('"/metrics"');
    ts.server.authentication.add(
      new StaticTokenAuthenticator(
        new Map([
          ['plain-reader', { username: 'plain', groups: [] }],
          ['monitor', { username: 'prometheus', groups: ['system:monitoring'] }],
        ]),
      ),
    );
    expect(
      (await ts.req('GET', '/metrics', undefined, { authorization: 'Bearer plain-reader' })).status,
    ).toBe(403);
    const allowed = await ts.req('GET', '/metrics', undefined, { authorization: 'Bearer monitor' });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('# TYPE apiserver_request_total counter');
    // the refusals are requests too
    const fams = await scrape(ts);
    expect(
      sample(fams, 'apiserver_request_total', { code: '403', verb: 'GET', subresource: '', scope: '' }),
    ).toBeGreaterThanOrEqual(2);
  });
});

describe('--show-hidden-metrics-for-version', () => {
  it('1.27 shows again the metrics 1.28 hides; the help names it', async () => {
    const ts = await startServer({ showHiddenMetricsForVersion: '1.27' });
    try {
      await ts.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } });
      const fams = await scrape(ts);
      const slo = fams.get('apiserver_request_slo_duration_seconds');
      expect(slo?.type).toBe('histogram');
      expect(slo?.help).toMatch(/^\(Deprecated from 1\.27\) \[ALPHA\] /);
      const labels = { verb: 'POST', resource: 'configmaps', scope: 'resource' };
      expect(sample(fams, 'apiserver_request_slo_duration_seconds_count', labels)).toBe(1);
      expect(sample(fams, 'hidden_metrics_total', {})).toBe(0);
    } finally {
      await ts.close();
    }
  });

  it('any other value fails at start with a clear message', async () => {
    for (const v of ['1.26', '1.28', '1.27.0']) {
      await expect(build({ inMemory: true, tls: false, showHiddenMetricsForVersion: v })).rejects.toThrow(
        ConfigurationError,
      );
      await expect(build({ inMemory: true, tls: false, showHiddenMetricsForVersion: v })).rejects.toThrow(
        "--show-hidden-metrics-for-version must be omitted or have the value '1.27'",
      );
      expect(() => parseServeArgs(['--show-hidden-metrics-for-version', v])).toThrow(UsageError);
    }
    expect(
      parseServeArgs(['--show-hidden-metrics-for-version=1.27'])?.options.showHiddenMetricsForVersion,
    ).toBe('1.27');
    expect(SERVE_USAGE).toMatch(/--show-hidden-metrics-for-version V[\s\S]*1\.27/);
  });
});

// ------------------------------------------------------------------ kubectl

describe('kubectl get --raw /metrics', () => {
  const bin = findKubectl();
  let ts: TestServer;
  let dir: string;
  beforeAll(async () => {
    ts = await startServer({ tls: true });
    dir = mkdtempSync(join(tmpdir(), 'orch-metrics-kubectl-'));
    writeKubeconfig(join(dir, 'kubeconfig'), { server: ts.url, caPem: ts.server.caPem!, token: ts.token });
  });
  afterAll(async () => {
    await ts?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints the metrics', async () => {
    expect(kubectlMissing(bin), kubectlMissing(bin)).toBeUndefined();
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        bin!,
        [
          '--kubeconfig',
          join(dir, 'kubeconfig'),
          '--cache-dir',
          join(dir, 'cache'),
          'get',
          '--raw',
          '/metrics',
        ],
        { env: { ...process.env, HOME: dir }, timeout: 25_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout: String(stdout), stderr: String(stderr) }),
      ),
    );
    expect(out.code, out.stderr).toBe(0);
    const fams = parseExposition(out.stdout);
    expect(fams.get('apiserver_request_total')?.type).toBe('counter');
    expect(sample(fams, 'kubernetes_build_info', { git_version: 'v1.28.0-orch.0' })).toBe(1);
  });
});
