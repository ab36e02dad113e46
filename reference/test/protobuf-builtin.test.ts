// Protobuf for every built-in kind: the generated message descriptions
// (src/content/protobuf/messages-1.28.json, made by scripts/gen-protobuf-messages.ts from
// Kubernetes 1.28's generated.proto and Go structs). Round trips JSON -> Protobuf -> JSON for
// kinds of many groups, bytes built with an independent description of the messages
// (fixtures/k8s-subset.proto, the shape a Go client writes), and create/get over HTTP.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatGoDuration, ProtobufError, parseGoDuration } from '../src/content/protobuf/codec.ts';
import { decodeProtobuf, encodeProtobuf, hasProtobuf, PREFIX } from '../src/content/protobuf.ts';
import { makeNamespace, startServer, type TestServer, uniqueName } from './helpers.ts';

const PROTO = 'application/vnd.orch.protobuf';
const root = protobuf.loadSync(resolve(dirname(fileURLToPath(import.meta.url)), 'fixtures/k8s-subset.proto'));
const T = (name: string) => root.lookupType(`subset.${name}`);

/** An envelope around `value` encoded as `message` with the independent description. */
function wrap(apiVersion: string, kind: string, message: string, value: Record<string, unknown>): Buffer {
  const type = T(message);
  const err = type.verify(value);
  if (err) throw new Error(`${message}: ${err}`);
  const raw = type.encode(type.fromObject(value)).finish();
  const unknown = T('Unknown')
    .encode(T('Unknown').fromObject({ typeMeta: { apiVersion, kind }, raw }))
    .finish();
  return Buffer.concat([PREFIX, unknown]);
}

/** The raw object of an envelope, decoded with the independent description. */
function unwrap(body: Buffer, message: string): any {
  expect([...body.subarray(0, 4)]).toEqual([...PREFIX]);
  const u = T('Unknown').decode(body.subarray(4)) as any;
  return T(message).toObject(T(message).decode(u.raw), { longs: Number, defaults: false });
}

const podSpec = {
  containers: [
    {
      name: 'web',
      image: 'nginx:1.25',
      command: ['nginx', '-g', 'daemon off;'],
      ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
      env: [
        { name: 'A', value: '1' },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
      livenessProbe: {
        httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
        initialDelaySeconds: 3,
        periodSeconds: 10,
      },
      readinessProbe: { tcpSocket: { port: 80 }, failureThreshold: 3 },
      lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
      securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false },
    },
  ],
  volumes: [
    { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
    { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420, items: [{ key: 'a', path: 'a.txt' }] } },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 0,
  nodeSelector: { 'orch.io/os': 'linux' },
  tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
  overhead: { cpu: '10m' },
};

/** Objects whose JSON form comes back unchanged (no empty objects: Protobuf cannot tell them from unset). */
const OBJECTS: any[] = [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'svc',
      namespace: 'ns',
      labels: { app: 'web' },
      creationTimestamp: '2024-05-01T10:00:00Z',
    },
    spec: {
      type: 'NodePort',
      selector: { app: 'web' },
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 },
        { name: 'https', protocol: 'TCP', port: 443, targetPort: 'https', appProtocol: 'https' },
      ],
      clusterIP: '10.0.0.10',
      clusterIPs: ['10.0.0.10'],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      allocateLoadBalancerNodePorts: false,
      internalTrafficPolicy: 'Cluster',
      externalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ports: [{ port: 80, protocol: 'TCP' }] }] } },
  },
  {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'quota', namespace: 'ns' },
    spec: {
      hard: { cpu: '2', memory: '1Gi', pods: '10', 'requests.storage': '500Gi' },
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
    },
    status: { hard: { cpu: '2', pods: '10' }, used: { cpu: '0', pods: '1' } },
  },
  {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'rc', namespace: 'ns', generation: 3 },
    spec: {
      replicas: 0,
      minReadySeconds: 5,
      selector: { app: 'web' },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
    },
    status: { replicas: 2, readyReplicas: 1, observedGeneration: 3 },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'pod',
      namespace: 'ns',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'u-1', controller: true },
      ],
    },
    spec: podSpec,
    status: {
      phase: 'Running',
      podIP: '10.1.0.5',
      podIPs: [{ ip: '10.1.0.5' }],
      startTime: '2024-05-01T10:00:01Z',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-01T10:00:05Z' }],
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: 0,
          image: 'nginx:1.25',
          imageID: 'sha',
          started: true,
          state: { running: { startedAt: '2024-05-01T10:00:02Z' } },
        },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'dep', namespace: 'ns', annotations: { 'deployment.orch.io/revision': '1' } },
    spec: {
      replicas: 3,
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }],
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      paused: true,
    },
    status: {
      replicas: 3,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: '2024-05-01T10:00:00Z',
          lastTransitionTime: '2024-05-01T10:00:00Z',
          reason: 'MinimumReplicasAvailable',
        },
      ],
    },
  },
  {
    apiVersion: 'rbac.authorization.orch.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'reader' },
    rules: [
      { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
      { nonResourceURLs: ['/healthz'], verbs: ['get'] },
    ],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example/aggregate': 'true' } }] },
  },
  {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.orch.io' },
    spec: {
      group: 'example.orch.io',
      names: {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['size'],
                  'x-orch-validations': [{ rule: 'self.size > 0', message: 'size must be positive' }],
                  properties: {
                    size: { type: 'integer', minimum: 0.5, maximum: 10, default: 3, enum: [1, 3, 'x'] },
                    tags: { type: 'array', items: { type: 'string' }, 'x-orch-list-type': 'set' },
                    ref: { $ref: '#/definitions/x', $schema: 'http://json-schema.org/schema#' },
                    free: { type: 'object', 'x-orch-preserve-unknown-fields': true },
                    open: { type: 'object', additionalProperties: false },
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    port: { 'x-orch-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                    tuple: { items: [{ type: 'string' }, { type: 'integer' }] },
                    deps: { dependencies: { a: ['b'], c: { required: ['d'] } } },
                    example: { type: 'object', example: { a: [1, null, 'z'] } },
                  },
                },
              },
            },
          },
          subresources: { scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size', priority: 1 }],
        },
        { name: 'v2', served: false, storage: false, deprecated: true, deprecationWarning: 'gone' },
      ],
      conversion: { strategy: 'None' },
    },
    status: {
      conditions: [
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: '2024-05-01T10:00:00Z',
          reason: 'InitialNamesAccepted',
        },
      ],
      acceptedNames: { plural: 'widgets', kind: 'Widget' },
      storedVersions: ['v1'],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'rev', namespace: 'ns' },
    data: { spec: { template: { a: [1, 'b', null, true] } } },
    revision: 7,
  },
  {
    apiVersion: 'authentication.orch.io/v1',
    kind: 'TokenReview',
    metadata: { name: 'tr' },
    spec: { token: 't', audiences: ['api'] },
    status: { authenticated: true, user: { username: 'u', groups: ['g'], extra: { scopes: ['a', 'b'] } } },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cj', namespace: 'ns' },
    spec: {
      schedule: '*/5 * * * *',
      timeZone: 'Etc/UTC',
      concurrencyPolicy: 'Forbid',
      suspend: false,
      jobTemplate: { spec: { backoffLimit: 0, template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
    },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'hpa', namespace: 'ns' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'dep' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } },
        },
      ],
    },
    // desiredReplicas has no omitempty: Go's JSON always writes it
    status: { currentReplicas: 1, desiredReplicas: 2 },
  },
];

describe('Protobuf for every built-in kind (module)', () => {
  for (const obj of OBJECTS) {
    it(`round-trips ${obj.apiVersion}/${obj.kind} JSON -> Protobuf -> JSON`, () => {
      expect(hasProtobuf(obj.apiVersion, obj.kind)).toBe(true);
      const body = encodeProtobuf(obj);
      expect(body.subarray(0, 4).equals(PREFIX)).toBe(true);
      expect(decodeProtobuf(body)).toEqual(obj);
    });
  }

  it('round-trips list kinds, naming each item', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ServiceList',
      metadata: { resourceVersion: '12' },
      items: [OBJECTS[0]],
    };
    expect(decodeProtobuf(encodeProtobuf(list))).toEqual(list);
  });

  it('writes Service ports as Kubernetes declares them (IntOrString type/intVal/strVal)', () => {
    const pb = unwrap(encodeProtobuf(OBJECTS[0]), 'Service');
    expect(pb.spec.ports[0]).toMatchObject({ name: 'http', port: 80, targetPort: { type: 0, intVal: 8080 } });
    expect(pb.spec.ports[1].targetPort).toMatchObject({ type: 1, strVal: 'https' });
    expect(pb.spec.selector).toEqual({ app: 'web' });
  });

  it('writes quantities as their text (field 1)', () => {
    const pb = unwrap(encodeProtobuf(OBJECTS[1]), 'ResourceQuota');
    expect(pb.spec.hard).toEqual({
      cpu: { string: '2' },
      memory: { string: '1Gi' },
      pods: { string: '10' },
      'requests.storage': { string: '500Gi' },
    });
    expect(pb.status.used).toEqual({ cpu: { string: '0' }, pods: { string: '1' } });
  });

  it('reads a Service as a Go client writes it: every value field set, zero ones included', () => {
    const body = wrap('v1', 'Service', 'Service', {
      metadata: { name: 'go', namespace: '', generateName: '', generation: 0, creationTimestamp: {} },
      spec: {
        ports: [
          {
            name: '',
            protocol: 'TCP',
            port: 80,
            targetPort: { type: 0, intVal: 0, strVal: '' },
            nodePort: 0,
          },
          {
            name: 'b',
            protocol: 'UDP',
            port: 53,
            targetPort: { type: 1, intVal: 0, strVal: 'dns' },
            nodePort: 0,
          },
          {
            name: 'c',
            protocol: 'TCP',
            port: 81,
            targetPort: { type: 0, intVal: 9000, strVal: '' },
            nodePort: 0,
          },
        ],
        selector: { app: 'x' },
        clusterIP: '',
        type: '',
        sessionAffinity: '',
      },
    });
    expect(decodeProtobuf(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'go' },
      spec: {
        // a zero IntOrString is unset, as 1.28's defaulting reads it
        ports: [
          { protocol: 'TCP', port: 80 },
          { name: 'b', protocol: 'UDP', port: 53, targetPort: 'dns' },
          { name: 'c', protocol: 'TCP', port: 81, targetPort: 9000 },
        ],
        selector: { app: 'x' },
      },
    });
  });

  it('reads a ResourceQuota as a Go client writes it', () => {
    const body = wrap('v1', 'ResourceQuota', 'ResourceQuota', {
      metadata: { name: 'rq', namespace: 'ns' },
      spec: { hard: { cpu: { string: '1' }, 'count/services': { string: '2' } }, scopes: ['NotTerminating'] },
      status: { hard: { cpu: { string: '1' } }, used: { cpu: { string: '0' } } },
    });
    expect(decodeProtobuf(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'rq', namespace: 'ns' },
      spec: { hard: { cpu: '1', 'count/services': '2' }, scopes: ['NotTerminating'] },
      status: { hard: { cpu: '1' }, used: { cpu: '0' } },
    });
  });

  it('refuses values of the wrong type and malformed bytes with a ProtobufError', () => {
    const svc = (targetPort: unknown) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'bad' },
      spec: { ports: [{ port: 1, targetPort }] },
    });
    expect(() => encodeProtobuf(svc(true))).toThrow(ProtobufError);
    expect(() => encodeProtobuf(svc(1.5))).toThrow(/spec\.ports\[0\]\.targetPort/);
    expect(() =>
      encodeProtobuf({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: {}, spec: { hard: { cpu: {} } } }),
    ).toThrow(ProtobufError);
    const good = encodeProtobuf(OBJECTS[0]);
    expect(() => decodeProtobuf(good.subarray(0, good.length - 20))).toThrow();
    // ServicePort.port (3) sent with the wire type of a string
    const wrong = wrap('v1', 'Service', 'Service', { spec: { ports: [{ name: 'x' }] } });
    const patched = Buffer.from(wrong);
    const at = patched.indexOf(Buffer.from([0x0a, 0x01, 0x78])); // name = "x"
    patched[at] = 0x1a; // field 3, wire type 2
    expect(() => decodeProtobuf(patched)).toThrow(ProtobufError);
  });

  it("formats and parses Go's durations", () => {
    for (const [text, ns] of [
      ['0s', 0],
      ['1h2m3s', 3723e9],
      ['1m30s', 90e9],
      ['1.5s', 1.5e9],
      ['150ms', 150e6],
      ['2µs', 2000],
      ['7ns', 7],
      ['-5s', -5e9],
    ] as const) {
      expect(parseGoDuration(text, 'd')).toBe(ns);
      expect(formatGoDuration(ns)).toBe(text);
    }
    expect(parseGoDuration('1h', 'd')).toBe(3600e9);
    expect(() => parseGoDuration('soon', 'd')).toThrow(ProtobufError);
  });
});

describe('Protobuf for every built-in kind (HTTP)', () => {
  let srv: TestServer;
  let ns: string;

  beforeAll(async () => {
    srv = await startServer();
    ns = await makeNamespace(srv, 'pbgen');
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('has a Protobuf form for every built-in kind the server serves', () => {
    const missing: string[] = [];
    const reg = srv.server.registry;
    for (const s of reg.all()) {
      // a twin group (certificates.k8s.io for kubectl) answers JSON
      if (s.def.custom || reg.canonicalGroup(s.def.group) !== s.def.group) continue;
      for (const v of s.def.versions) {
        const apiVersion = s.def.group ? `${s.def.group}/${v}` : v;
        if (!hasProtobuf(apiVersion, s.def.kind)) missing.push(`${apiVersion}/${s.def.kind}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('creates a Service from a Protobuf body and gets it in Protobuf', async () => {
    const body = wrap('v1', 'Service', 'Service', {
      metadata: { name: 'pb-svc', namespace: ns },
      spec: {
        ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: { type: 1, strVal: 'http' } }],
        selector: { app: 'web' },
        type: 'ClusterIP',
      },
    });
    const c = await srv.req('POST', `/api/v1/namespaces/${ns}/services`, body, {
      'content-type': PROTO,
      accept: PROTO,
    });
    expect(c.status).toBe(201);
    expect(c.headers['content-type']).toBe(PROTO);
    const created = decodeProtobuf(c.body) as any;
    expect(created.spec.ports[0]).toMatchObject({ name: 'http', port: 80, targetPort: 'http' });
    expect(created.spec.clusterIP).toBeTruthy();
    const g = await srv.req('GET', `/api/v1/namespaces/${ns}/services/pb-svc`, undefined, { accept: PROTO });
    expect(g.status).toBe(200);
    const pb = unwrap(g.body, 'Service');
    expect(pb.spec.ports[0].targetPort).toMatchObject({ type: 1, strVal: 'http' });
    expect(pb.metadata.name).toBe('pb-svc');
    const j = await srv.req('GET', `/api/v1/namespaces/${ns}/services/pb-svc`);
    expect(j.json.spec.ports[0].targetPort).toBe('http');
  });

  it('creates a ResourceQuota from a Protobuf body and lists it in Protobuf', async () => {
    const body = wrap('v1', 'ResourceQuota', 'ResourceQuota', {
      metadata: { name: 'pb-quota', namespace: ns },
      spec: { hard: { pods: { string: '5' }, cpu: { string: '1500m' } } },
    });
    const c = await srv.req('POST', `/api/v1/namespaces/${ns}/resourcequotas`, body, {
      'content-type': PROTO,
    });
    expect(c.status).toBe(201);
    expect(c.json.spec.hard).toEqual({ pods: '5', cpu: '1500m' });
    const l = await srv.req('GET', `/api/v1/namespaces/${ns}/resourcequotas`, undefined, { accept: PROTO });
    expect(l.status).toBe(200);
    const list = decodeProtobuf(l.body) as any;
    expect(list.kind).toBe('ResourceQuotaList');
    expect(list.items.map((i: any) => i.metadata.name)).toContain('pb-quota');
    expect(list.items.find((i: any) => i.metadata.name === 'pb-quota').spec.hard).toEqual({
      pods: '5',
      cpu: '1500m',
    });
  });

  it('creates a Deployment and a CustomResourceDefinition from Protobuf bodies', async () => {
    const dep = OBJECTS.find((o) => o.kind === 'Deployment');
    const d = await srv.req(
      'POST',
      `/apis/apps/v1/namespaces/${ns}/deployments`,
      encodeProtobuf({ ...dep, metadata: { name: 'pb-dep', namespace: ns }, status: undefined }),
      { 'content-type': PROTO, accept: PROTO },
    );
    expect(d.status, d.text).toBe(201);
    const got = decodeProtobuf(d.body) as any;
    expect(got.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: '25%', maxSurge: 1 });
    expect(got.spec.template.spec.containers[0].resources.limits).toEqual({ cpu: '500m', memory: '128Mi' });
    // a subresource's kind (autoscaling/v1 Scale) too
    const scale = await srv.req('GET', `/apis/apps/v1/namespaces/${ns}/deployments/pb-dep/scale`, undefined, {
      accept: PROTO,
    });
    expect(scale.headers['content-type']).toBe(PROTO);
    expect(decodeProtobuf(scale.body)).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      spec: { replicas: 3 },
    });

    // the round-trip object less what a structural schema forbids ($ref, dependencies, tuples)
    const crd = structuredClone(OBJECTS.find((o) => o.kind === 'CustomResourceDefinition'));
    crd.spec.versions = crd.spec.versions.slice(0, 1);
    const specProps = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    for (const k of ['ref', 'tuple', 'deps']) delete specProps[k];
    const group = `${uniqueName('pbg')}.example.orch.io`;
    const c = await srv.req(
      'POST',
      '/apis/apiextensions.orch.io/v1/customresourcedefinitions',
      encodeProtobuf({
        ...crd,
        metadata: { name: `widgets.${group}` },
        spec: { ...crd.spec, group },
        status: undefined,
      }),
      { 'content-type': PROTO, accept: PROTO },
    );
    expect(c.status, c.text).toBe(201);
    const back = decodeProtobuf(c.body) as any;
    const props = back.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    expect(props.size).toMatchObject({ default: 3, minimum: 0.5, enum: [1, 3, 'x'] });
    expect(props.free['x-orch-preserve-unknown-fields']).toBe(true);
  });

  it('answers 400 BadRequest, never 500, to a malformed Protobuf body', async () => {
    const post = (body: Buffer) =>
      srv.req('POST', `/api/v1/namespaces/${ns}/services`, body, { 'content-type': PROTO });
    const good = wrap('v1', 'Service', 'Service', {
      metadata: { name: 'bad' },
      spec: { ports: [{ port: 1 }] },
    });
    for (const body of [
      good.subarray(0, good.length - 3),
      Buffer.concat([PREFIX, Buffer.from([0x0a, 0x05, 0x0a, 0x01])]),
      Buffer.concat([good, Buffer.from([0xff])]),
    ]) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    }
  });
});
