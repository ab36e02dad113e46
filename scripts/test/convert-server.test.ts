// `orch-conformance convert` against the real thing: manifests at retired versions, converted,
// are created on a reference server at their replacement versions (each answered 201), and
// read back at that version with the converted fields in place. The manifests are complete
// enough that doc2's rules leave nothing to decide (sideEffects set, a signer named).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrPem } from '../../reference/test/cert-helpers.ts';
import { startServer, type TestServer, uniqueName } from '../../reference/test/helpers.ts';
import { convertManifests } from '../convert/index.ts';
import { ROOT } from './helpers.ts';

const FIXTURE = join(ROOT, 'scripts', 'test', 'fixtures', 'retired-complete.yaml');

let ts: TestServer;
let ns: string;
let docs: any[];

/** The plural and scope of a kind at a group version, from the server's discovery. */
async function resourceOf(
  apiVersion: string,
  kind: string,
): Promise<{ plural: string; namespaced: boolean } | undefined> {
  const r = await ts.req('GET', apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`);
  const res = r.json?.resources?.find((x: any) => x.kind === kind && !x.name.includes('/'));
  return res && { plural: res.name, namespaced: res.namespaced };
}

beforeAll(async () => {
  ts = await startServer();
  ns = uniqueName('convert');
  expect(
    (
      await ts.req('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      })
    ).status,
  ).toBe(201);
  const { pem } = await csrPem('convert');
  const text = readFileSync(FIXTURE, 'utf8')
    .replaceAll('NS', ns)
    .replace('REQUEST', Buffer.from(pem).toString('base64'));
  const r = convertManifests(text);
  expect(r.errors).toEqual([]);
  expect(r.reports.filter((x) => x.dropped)).toEqual([]);
  docs = parseAllDocuments(r.text).map((d) => d.toJS());
});
afterAll(() => ts?.close());

describe('converted manifests are accepted by the reference at their replacement versions', () => {
  it('every converted object is created (201) and reads back at its new version', async () => {
    const failures: string[] = [];
    for (const o of docs) {
      const res = await resourceOf(o.apiVersion, o.kind);
      if (!res) {
        failures.push(`${o.kind} ${o.apiVersion}: not served (discovery does not list it)`);
        continue;
      }
      const { plural, namespaced } = res;
      const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
      const path = `${base}${namespaced ? `/namespaces/${ns}` : ''}/${plural}`;
      const r = await ts.req('POST', path, o);
      if (r.status !== 201) {
        failures.push(`${o.kind} ${o.apiVersion}: ${r.status} ${r.json?.message ?? r.text.slice(0, 300)}`);
        continue;
      }
      const back = await ts.req('GET', `${path}/${o.metadata.name}`);
      expect(back.status).toBe(200);
      expect(back.json.apiVersion).toBe(o.apiVersion);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('the field changes survive the server: pathType, service ports, nominal shares, CRD columns', async () => {
    const ing = await ts.req('GET', `/apis/networking.orch.io/v1/namespaces/${ns}/ingresses/web`);
    expect(ing.json.spec.defaultBackend.service).toEqual({ name: 'fallback', port: { number: 80 } });
    expect(ing.json.spec.rules[0].http.paths[0].pathType).toBe('ImplementationSpecific');
    const plc = await ts.req(
      'GET',
      `/apis/flowcontrol.apiserver.orch.io/v1beta3/prioritylevelconfigurations/${ns}-batch`,
    );
    expect(plc.json.spec.limited.nominalConcurrencyShares).toBe(7);
    const crd = await ts.req(
      'GET',
      `/apis/apiextensions.orch.io/v1/customresourcedefinitions/${ns}.example.com`,
    );
    expect(crd.json.spec.versions[0].additionalPrinterColumns[0].jsonPath).toBe('.spec.size');
    const dep = await ts.req('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    expect(dep.json.spec.selector).toEqual({ matchLabels: { app: 'web' } });
    const ds = await ts.req('GET', `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`);
    expect(ds.json.spec.updateStrategy.type).toBe('OnDelete');
  });
});
