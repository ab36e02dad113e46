// Endpoints (v1) and EndpointSlice (discovery.orch.io/v1): discovery and table columns as a
// Kubernetes 1.28 server lists them, 1.28's defaults and validation, the canonical repacking
// of Endpoints subsets, and the v1 EndpointSlice field change of doc2's retired-versions
// table (per-endpoint nodeName and zone; topology only as the non-writable deprecatedTopology).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResourceAsFact } from './discovery-expect.ts';
import { startServer, type TestServer, uniqueName } from './helpers.ts';
import { columnsOf, readFact } from './k8s-facts.ts';

let ts: TestServer;
let ns: string;
beforeAll(async () => {
  ts = await startServer();
  ns = uniqueName('ep');
  expect((await ts.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});
afterAll(async () => {
  await ts?.close();
});

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const causesOf = (r: { json: any }) =>
  (r.json?.details?.causes ?? []) as { field: string; message: string; reason: string }[];
const cause = (r: { json: any }, field: string, text: string) =>
  causesOf(r).find((c) => c.field === field && c.message.includes(text));

describe('discovery as Kubernetes 1.28 lists it', () => {
  const facts = (readFact('discovery.json') as any).resources;
  for (const [gv, path, name] of [
    ['v1', '/api/v1', 'endpoints'],
    ['discovery.k8s.io/v1', '/apis/discovery.orch.io/v1', 'endpointslices'],
  ] as const)
    it(`${gv} ${name}`, async () => {
      const r = await ts.req('GET', path);
      expect(r.status).toBe(200);
      const want = (facts[gv] as any[]).find((x) => x.name === name);
      const got = r.json.resources.find((x: any) => x.name === name);
      expect(want, `discovery.json lists ${name}`).toBeDefined();
      expect(got, name).toBeDefined();
      expectResourceAsFact(got, want);
    });

  it('discovery.orch.io serves v1 only (v1beta1 was retired in 1.25)', async () => {
    const g = await ts.req('GET', '/apis/discovery.orch.io');
    expect(g.status).toBe(200);
    expect(g.json.versions.map((v: any) => v.version)).toEqual(['v1']);
    expect((await ts.req('GET', '/apis/discovery.orch.io/v1beta1')).status).toBe(404);
  });
});

const endpoints = (name: string, subsets: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name },
  subsets,
});

describe('Endpoints', () => {
  const path = () => `/api/v1/namespaces/${ns}/endpoints`;

  it('ports get TCP; subsets are stored repacked: one per port set, addresses by IP, ports in 1.28 order', async () => {
    const c = await ts.req(
      'POST',
      path(),
      endpoints('kube-dns', [
        {
          addresses: [{ ip: '10.32.0.3' }],
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 53 },
            { name: 'metrics', port: 9153, protocol: 'TCP' },
          ],
        },
        {
          addresses: [{ ip: '10.32.0.2' }],
          ports: [
            { name: 'metrics', port: 9153, protocol: 'TCP' },
            { name: 'dns', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 53, protocol: 'TCP' },
          ],
        },
      ]),
    );
    expect(c.status, c.text).toBe(201);
    // the order `kubectl describe endpoints kube-dns` shows on clusters since 1.19
    expect(c.json.subsets).toEqual([
      {
        addresses: [{ ip: '10.32.0.2' }, { ip: '10.32.0.3' }],
        ports: [
          { name: 'dns-tcp', port: 53, protocol: 'TCP' },
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'metrics', port: 9153, protocol: 'TCP' },
        ],
      },
    ]);
    expect(c.json.metadata.generation).toBeUndefined();
  });

  it('an address not ready for a port is not ready for it; addresses on other ports form their own subset', async () => {
    const c = await ts.req(
      'POST',
      path(),
      endpoints('mixed', [
        { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] },
        { notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [{ port: 80 }] },
        { addresses: [{ ip: '10.0.0.9' }], ports: [{ port: 81 }] },
      ]),
    );
    expect(c.status, c.text).toBe(201);
    const subsets = c.json.subsets as any[];
    expect(subsets).toHaveLength(2);
    expect(subsets).toContainEqual({
      addresses: [{ ip: '10.0.0.1' }],
      notReadyAddresses: [{ ip: '10.0.0.2' }],
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    expect(subsets).toContainEqual({
      addresses: [{ ip: '10.0.0.9' }],
      ports: [{ port: 81, protocol: 'TCP' }],
    });
  });

  it('refuses empty subsets, bad or special IPs, unnamed ports among several, bad ports and protocols', async () => {
    const r = await ts.req(
      'POST',
      path(),
      endpoints('bad', [
        { ports: [{ port: 80 }] },
        {
          addresses: [
            { ip: '10.0.0.300' },
            { ip: '127.0.0.1' },
            { ip: '169.254.1.1', hostname: 'Not_A_Label' },
          ],
          notReadyAddresses: [{ ip: '0.0.0.0', nodeName: 'Bad_Node' }],
          ports: [{ port: 0 }, { name: 'b', port: 80, protocol: 'ICMP' }],
        },
      ]),
    );
    expect(r.status).toBe(422);
    expect(
      cause(r, 'subsets[0]', 'Required value: must specify `addresses` or `notReadyAddresses`'),
    ).toBeDefined();
    expect(
      cause(r, 'subsets[1].addresses[0].ip', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'),
    ).toBeDefined();
    expect(
      cause(r, 'subsets[1].addresses[1].ip', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'),
    ).toBeDefined();
    expect(
      cause(
        r,
        'subsets[1].addresses[2].ip',
        'may not be in the link-local range (169.254.0.0/16, fe80::/10)',
      ),
    ).toBeDefined();
    expect(cause(r, 'subsets[1].addresses[2].hostname', 'RFC 1123 label')).toBeDefined();
    expect(cause(r, 'subsets[1].notReadyAddresses[0].ip', 'may not be unspecified (0.0.0.0)')).toBeDefined();
    expect(cause(r, 'subsets[1].notReadyAddresses[0].nodeName', 'RFC 1123 subdomain')).toBeDefined();
    expect(cause(r, 'subsets[1].ports[0].name', 'Required value')).toBeDefined();
    expect(cause(r, 'subsets[1].ports[0].port', 'must be between 1 and 65535, inclusive')).toBeDefined();
    expect(
      cause(
        r,
        'subsets[1].ports[1].protocol',
        'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      ),
    ).toBeDefined();
  });

  it('PUT creates a missing object; the table prints ready ip:port pairs, three at most', async () => {
    const p = await ts.req(
      'PUT',
      `${path()}/made-by-put`,
      endpoints('made-by-put', [
        {
          addresses: [{ ip: '10.0.0.4' }, { ip: '10.0.0.1' }, { ip: '10.0.0.3' }, { ip: '10.0.0.2' }],
          notReadyAddresses: [{ ip: '10.0.0.5' }],
          ports: [{ port: 8080 }],
        },
      ]),
    );
    expect(p.status, p.text).toBe(201);
    const t = await ts.req('GET', `${path()}/made-by-put`, undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((c: any) => c.name)).toEqual(
      columnsOf('', 'v1', 'endpoints').map((c) => c.name),
    );
    expect(t.json.rows[0].cells.slice(0, 2)).toEqual([
      'made-by-put',
      '10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 1 more...',
    ]);
    const empty = await ts.req('POST', path(), endpoints('empty', []));
    expect(empty.status, empty.text).toBe(201);
    expect(empty.json.subsets).toBeUndefined();
    const te = await ts.req('GET', `${path()}/empty`, undefined, { accept: TABLE });
    expect(te.json.rows[0].cells[1]).toBe('<none>');
  });
});

const slice = (name: string, extra: Record<string, unknown>) => ({
  apiVersion: 'discovery.orch.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, labels: { 'endpointslice.orch.io/managed-by': 'tests.example.com' } },
  ...extra,
});

describe('EndpointSlice', () => {
  const path = () => `/apis/discovery.orch.io/v1/namespaces/${ns}/endpointslices`;

  it('ports get TCP and an empty name; nodeName and zone are kept, deprecatedTopology is not written', async () => {
    const c = await ts.req(
      'POST',
      path(),
      slice('web-1', {
        addressType: 'IPv4',
        endpoints: [
          {
            addresses: ['10.1.0.1'],
            conditions: { ready: true },
            nodeName: 'node-1',
            zone: 'zone-a',
            deprecatedTopology: { 'orch.io/hostname': 'node-1', rack: 'r1' },
            hints: { forZones: [{ name: 'zone-a' }] },
          },
        ],
        ports: [{ port: 80 }],
      }),
    );
    expect(c.status, c.text).toBe(201);
    expect(c.json.ports).toEqual([{ name: '', protocol: 'TCP', port: 80 }]);
    expect(c.json.endpoints[0]).toEqual({
      addresses: ['10.1.0.1'],
      conditions: { ready: true },
      nodeName: 'node-1',
      zone: 'zone-a',
      hints: { forZones: [{ name: 'zone-a' }] },
    });
    expect(c.json.metadata.generation).toBe(1);
    expect(c.json.metadata.labels['endpointslice.orch.io/managed-by']).toBe('tests.example.com');
  });

  it('a slice without endpoints is valid (a placeholder)', async () => {
    const c = await ts.req('POST', path(), slice('placeholder', { addressType: 'IPv4', ports: [] }));
    expect(c.status, c.text).toBe(201);
    const t = await ts.req('GET', `${path()}/placeholder`, undefined, { accept: TABLE });
    expect(t.json.rows[0].cells.slice(0, 4)).toEqual(['placeholder', 'IPv4', '<unset>', '<unset>']);
  });

  it('an FQDN slice is accepted with the 1.28 deprecation warning', async () => {
    const c = await ts.req(
      'POST',
      path(),
      slice('fqdn', { addressType: 'FQDN', endpoints: [{ addresses: ['www.example.com.'] }] }),
    );
    expect(c.status, c.text).toBe(201);
    expect(String(c.headers.warning)).toContain('spec.addressType: FQDN endpoints are deprecated');
    const ipv4 = await ts.req('POST', path(), slice('no-warning', { addressType: 'IPv4', endpoints: [] }));
    expect(ipv4.headers.warning).toBeUndefined();
  });

  it('refuses what 1.28 refuses, with its causes', async () => {
    const r = await ts.req(
      'POST',
      path(),
      slice('bad', {
        addressType: 'IPv4',
        endpoints: [
          { addresses: [] },
          {
            addresses: ['2001:db8::1', '127.0.0.1', '::ffff:10.0.0.1'],
            hostname: 'Not_A_Label',
            nodeName: 'Bad_Node',
          },
          { addresses: Array.from({ length: 101 }, (_, i) => `10.2.${i >> 8}.${(i % 250) + 1}`) },
          { addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }, { name: 'a' }] } },
        ],
        ports: [
          { name: 'http', port: 80 },
          { name: 'http', port: 81, protocol: 'ICMP' },
          { name: 'Bad_Name', port: 82, appProtocol: 'not a protocol' },
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('EndpointSlice.discovery.orch.io "bad" is invalid');
    expect(
      cause(r, 'endpoints[0].addresses', 'Required value: must contain at least 1 address'),
    ).toBeDefined();
    expect(cause(r, 'endpoints[1].addresses[0]', 'must be a valid IPv4 address')).toBeDefined();
    expect(cause(r, 'endpoints[1].addresses[1]', 'may not be in the loopback range')).toBeDefined();
    // an IPv4-mapped IPv6 address is an IPv4 address to Kubernetes
    expect(cause(r, 'endpoints[1].addresses[2]', 'must be a valid IPv4 address')).toBeUndefined();
    expect(cause(r, 'endpoints[1].hostname', 'RFC 1123 label')).toBeDefined();
    expect(cause(r, 'endpoints[1].nodeName', 'RFC 1123 subdomain')).toBeDefined();
    const many = cause(r, 'endpoints[2].addresses', 'Too many: 101: must have at most 100 items');
    expect(many?.reason).toBe('FieldValueTooMany');
    expect(cause(r, 'endpoints[3].hints.forZones[1].name', 'Duplicate value: "a"')).toBeDefined();
    expect(cause(r, 'ports[1].name', 'Duplicate value: "http"')).toBeDefined();
    expect(
      cause(r, 'ports[1].protocol', 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'),
    ).toBeDefined();
    expect(cause(r, 'ports[2].name', 'RFC 1123 label')).toBeDefined();
    expect(cause(r, 'ports[2].appProtocol', 'Invalid value: "not a protocol"')).toBeDefined();
  });

  it('IPv4 fields with leading zeros are read as decimal, as 1.28 reads them', async () => {
    const c = await ts.req(
      'POST',
      path(),
      slice('zeros', { addressType: 'IPv4', endpoints: [{ addresses: ['010.001.0.1', '192.168.000.001'] }] }),
    );
    expect(c.status, c.text).toBe(201);
    const bad = await ts.req(
      'POST',
      path(),
      slice('zeros-bad', { addressType: 'IPv4', endpoints: [{ addresses: ['0256.0.0.1', '0127.0.0.1'] }] }),
    );
    expect(cause(bad, 'endpoints[0].addresses[0]', 'must be a valid IPv4 address')).toBeDefined();
    expect(cause(bad, 'endpoints[0].addresses[1]', 'may not be in the loopback range')).toBeDefined();
  });

  it('address types: required, known, checked per type; at most 1000 endpoints', async () => {
    const none = await ts.req('POST', path(), slice('none', { endpoints: [] }));
    expect(cause(none, 'addressType', 'Required value')).toBeDefined();
    const unknown = await ts.req('POST', path(), slice('unknown', { addressType: 'IP', endpoints: [] }));
    expect(
      cause(unknown, 'addressType', 'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"'),
    ).toBeDefined();
    const v6 = await ts.req(
      'POST',
      path(),
      slice('v6', {
        addressType: 'IPv6',
        endpoints: [{ addresses: ['10.0.0.1', 'fe80::1', '2001:db8::5'] }],
      }),
    );
    expect(cause(v6, 'endpoints[0].addresses[0]', 'must be a valid IPv6 address')).toBeDefined();
    expect(cause(v6, 'endpoints[0].addresses[1]', 'may not be in the link-local range')).toBeDefined();
    expect(causesOf(v6).some((c) => c.field === 'endpoints[0].addresses[2]')).toBe(false);
    const fqdn = await ts.req(
      'POST',
      path(),
      slice('fq', { addressType: 'FQDN', endpoints: [{ addresses: ['localhost', 'Bad..name'] }] }),
    );
    expect(
      cause(
        fqdn,
        'endpoints[0].addresses[0]',
        'should be a domain with at least two segments separated by dots',
      ),
    ).toBeDefined();
    expect(cause(fqdn, 'endpoints[0].addresses[1]', 'RFC 1123 subdomain')).toBeDefined();
    const big = await ts.req(
      'POST',
      path(),
      slice('big', {
        addressType: 'IPv4',
        endpoints: Array.from({ length: 1001 }, (_, i) => ({
          addresses: [`10.3.${i >> 8}.${i & 255 || 1}`],
        })),
      }),
    );
    expect(cause(big, 'endpoints', 'Too many: 1001: must have at most 1000 items')).toBeDefined();
  });

  it('addressType never changes; the generation follows endpoint, port and label changes, not annotations', async () => {
    const c = await ts.req(
      'POST',
      path(),
      slice('gen', { addressType: 'IPv4', endpoints: [{ addresses: ['10.4.0.1'] }], ports: [{ port: 80 }] }),
    );
    expect(c.status, c.text).toBe(201);
    const v6 = await ts.req('PUT', `${path()}/gen`, { ...c.json, addressType: 'IPv6', endpoints: [] });
    expect(cause(v6, 'addressType', 'Invalid value: "IPv6": field is immutable')).toBeDefined();
    const eps = await ts.req('PUT', `${path()}/gen`, {
      ...c.json,
      endpoints: [{ addresses: ['10.4.0.2'], deprecatedTopology: { rack: 'r1' } }],
    });
    expect(eps.status, eps.text).toBe(200);
    expect(eps.json.metadata.generation).toBe(2);
    expect(eps.json.endpoints).toEqual([{ addresses: ['10.4.0.2'] }]);
    const ann = await ts.req('PUT', `${path()}/gen`, {
      ...eps.json,
      metadata: { ...eps.json.metadata, annotations: { note: 'x' } },
    });
    expect(ann.status, ann.text).toBe(200);
    expect(ann.json.metadata.generation).toBe(2);
    const lab = await ts.req('PUT', `${path()}/gen`, {
      ...ann.json,
      metadata: { ...ann.json.metadata, labels: { 'orch.io/service-name': 'web' } },
    });
    expect(lab.status, lab.text).toBe(200);
    expect(lab.json.metadata.generation).toBe(3);
  });

  it('prints the columns of table-columns.json: three ports and addresses at most', async () => {
    await ts.req(
      'POST',
      path(),
      slice('wide', {
        addressType: 'IPv4',
        endpoints: [
          { addresses: ['10.5.0.1', '10.5.0.2'] },
          { addresses: ['10.5.0.3', '10.5.0.4', '10.5.0.5'] },
        ],
        ports: [{ name: 'a', port: 80 }, { name: 'b', port: 443 }, { name: 'c' }, { name: 'd', port: 9000 }],
      }),
    );
    const t = await ts.req('GET', `${path()}/wide`, undefined, { accept: TABLE });
    expect(t.json.columnDefinitions.map((c: any) => c.name)).toEqual(
      columnsOf('discovery.orch.io', 'v1', 'endpointslices').map((c) => c.name),
    );
    expect(t.json.rows[0].cells.slice(0, 4)).toEqual([
      'wide',
      'IPv4',
      '80,443,c + 1 more...',
      '10.5.0.1,10.5.0.2,10.5.0.3 + 2 more...',
    ]);
  });
});
