// The deprecation suite's tables held to what a real Kubernetes 1.28 server serves (its
// discovery document and the Warning texts it sends, shared/kubernetes-1.28): the version set
// is read from the fixture, never typed a second time. Every retired version of
// suites/deprecation/rows/retired-versions.yaml is unserved by 1.28 (or served, deprecated,
// when its removal is announced for later), every replacement is served with the row's kind
// and scope; the deprecated-version rows are exactly the fixture's deprecated resources and
// build its Warning texts word for word; every resource 1.28 serves at more than one version
// has a sample object for the round-trip property.
import { describe, expect, it } from 'vitest';
import { dialect } from '../../harness/src/dialect.ts';
import { readFact } from '../../reference/test/k8s-facts.ts';
import {
  gvOf,
  kubernetesWarning,
  laterRelease,
  loadDeprecatedRows,
  loadRetiredRows,
  loadSamples,
  sampleKey,
  servedReplacement,
  stillServed,
  TARGET_RELEASE,
} from '../../suites/deprecation/row-files.ts';

interface FactResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

const k8s = dialect('kubernetes');
const discovery = readFact('discovery.json') as {
  preferred: Record<string, string>;
  resources: Record<string, FactResource[]>;
};
const warnings = readFact('deprecation-warnings.json') as Record<string, string>;
/** The fixture's entry of a resource at a group version (orch words in, Kubernetes' looked up). */
const served = (gv: string, resource: string) =>
  discovery.resources[k8s.w(gv)]?.find((r) => r.name === resource);

describe('deprecation rows against a 1.28 server', () => {
  const rows = loadRetiredRows();
  const deprecated = loadDeprecatedRows();

  it('the fixture is the release the suite reads the table against', () => {
    expect(TARGET_RELEASE).toBe('1.28');
  });

  it.each(rows.map((r) => [r.id, r] as const))(
    '%s: the retired version is served only when its removal is after 1.28',
    (_, r) => {
      const gv = gvOf(r.group, r.version);
      if (stillServed(r))
        expect(served(gv, r.resource), `${gv} ${r.resource} is served (deprecated) by 1.28`).toBeDefined();
      else {
        expect(served(gv, r.resource), `${gv} ${r.resource} is not served by 1.28`).toBeUndefined();
        expect(Object.keys(discovery.resources), `1.28 serves nothing at ${gv}`).not.toContain(k8s.w(gv));
      }
    },
  );

  it.each(rows.map((r) => [r.id, r] as const))(
    '%s: the replacement is served with the kind and scope of the row',
    (_, r) => {
      const rep = servedReplacement(r);
      if (!rep) {
        // a replacement retired itself, or none (a note)
        if (r.replacement.groupVersion)
          expect(served(r.replacement.groupVersion, r.resource)).toBeUndefined();
        return;
      }
      const e = served(rep, r.resource);
      expect(e, `${rep} ${r.resource} is served by 1.28`).toBeDefined();
      expect(e!.kind).toBe(r.kind);
      expect(e!.namespaced).toBe(r.namespaced);
      expect(laterRelease(r.replacement.since!, TARGET_RELEASE)).toBe(false);
    },
  );

  it('the deprecated-version rows are the resources 1.28 answers a deprecation Warning for, with its texts', () => {
    const mine = Object.fromEntries(
      deprecated.map((r) => [
        k8s.w(`${gvOf(r.group, r.version)}/${r.resource}`),
        k8s.w(`299 - "${kubernetesWarning(r)}"`),
      ]),
    );
    expect(mine).toEqual(warnings);
    for (const r of deprecated) expect(served(gvOf(r.group, r.version), r.resource)?.kind).toBe(r.kind);
  });

  it('every retired-versions row still served by 1.28 is a deprecated-version row announcing its release and replacement', () => {
    for (const r of rows.filter(stillServed)) {
      const d = deprecated.find(
        (x) => x.group === r.group && x.version === r.version && x.resource === r.resource,
      );
      expect(d, `${r.id} among the deprecated versions`).toBeDefined();
      expect(d!.removedIn).toBe(r.release);
      expect(d!.replacement).toBe(servedReplacement(r));
    }
  });

  it('every resource 1.28 serves at more than one version of its group has a sample object for the round-trip property', () => {
    const samples = loadSamples();
    const versions = new Map<string, string[]>();
    for (const [gv, list] of Object.entries(discovery.resources))
      for (const r of list) {
        if (r.name.includes('/') || !['create', 'get', 'update'].every((v) => r.verbs.includes(v))) continue;
        const group = k8s.back(gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '');
        const key = sampleKey(group, r.name);
        versions.set(key, [...(versions.get(key) ?? []), gv]);
      }
    const multi = [...versions.entries()].filter(([, v]) => v.length > 1).map(([k]) => k);
    expect(multi.length).toBeGreaterThan(0);
    expect(multi.filter((k) => !samples[k])).toEqual([]);
  });
});
