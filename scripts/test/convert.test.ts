// `orch-conformance convert`: each row family of doc2's retired-versions table rewritten as the
// table's field-change notes say (expected values written from doc2, not from the converter),
// notes for what changes behaviour, the exit codes, and the kubernetes dialect.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { convertManifests } from '../convert/index.ts';
import { cli, ROOT } from './helpers.ts';

const FIXTURE = join(ROOT, 'scripts', 'test', 'fixtures', 'retired-manifests.yaml');
const text = readFileSync(FIXTURE, 'utf8');
const result = convertManifests(text);
const docs = parseAllDocuments(result.text).map((d) => d.toJS());
const byKind = (kind: string) => docs.find((d) => d.kind === kind);
const notesOf = (kind: string) => result.reports.filter((r) => r.kind === kind).flatMap((r) => r.notes);

describe('convert: doc2 retired versions to their replacements', () => {
  it('Ingress: backend -> defaultBackend, service.name/port.number|name, pathType required', () => {
    const o = byKind('Ingress');
    expect(o.apiVersion).toBe('networking.orch.io/v1');
    expect(o.spec.defaultBackend).toEqual({ service: { name: 'fallback', port: { number: 80 } } });
    expect(o.spec.backend).toBeUndefined();
    const p = o.spec.rules[0].http.paths[0];
    expect(p.backend).toEqual({ service: { name: 'api', port: { name: 'http' } } });
    expect(p.pathType).toBe('ImplementationSpecific');
  });

  it('Deployment (extensions): rollbackTo removed, selector from the template, old defaults kept', () => {
    const o = byKind('Deployment');
    expect(o.apiVersion).toBe('apps/v1');
    expect(o.spec.rollbackTo).toBeUndefined();
    expect(o.spec.selector).toEqual({ matchLabels: { app: 'web' } });
    expect(o.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 1 });
    expect(notesOf('Deployment').some((n) => n.startsWith('spec.rollbackTo: removed'))).toBe(true);
  });

  it('DaemonSet (apps/v1beta2): templateGeneration removed, RollingUpdate is already the default', () => {
    const o = byKind('DaemonSet');
    expect(o.apiVersion).toBe('apps/v1');
    expect(o.spec.templateGeneration).toBeUndefined();
    expect(o.spec.updateStrategy).toBeUndefined();
  });

  it('PriorityLevelConfiguration: assuredConcurrencyShares -> nominalConcurrencyShares at v1beta3', () => {
    const o = byKind('PriorityLevelConfiguration');
    expect(o.apiVersion).toBe('flowcontrol.apiserver.orch.io/v1beta3');
    expect(o.spec.limited).toEqual({ nominalConcurrencyShares: 7, limitResponse: { type: 'Reject' } });
  });

  it('webhook configuration: old defaults written out, sideEffects and duplicate names reported', () => {
    const o = byKind('ValidatingWebhookConfiguration');
    expect(o.apiVersion).toBe('admissionregistration.orch.io/v1');
    expect(o.webhooks[0]).toMatchObject({
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      timeoutSeconds: 30,
      admissionReviewVersions: ['v1beta1'],
    });
    expect(o.webhooks[1].failurePolicy).toBe('Fail');
    const notes = notesOf('ValidatingWebhookConfiguration');
    expect(notes.some((n) => n.startsWith('webhooks[0].sideEffects'))).toBe(true);
    expect(notes.some((n) => n.startsWith('webhooks[1].sideEffects'))).toBe(false);
    expect(notes.some((n) => n.startsWith('webhooks[1].name'))).toBe(true);
  });

  it('CustomResourceDefinition: version, validation, subresources, columns under versions[*]; jsonPath', () => {
    const o = byKind('CustomResourceDefinition');
    expect(o.apiVersion).toBe('apiextensions.orch.io/v1');
    expect(o.spec.scope).toBe('Namespaced');
    expect(o.spec.version).toBeUndefined();
    expect(o.spec.validation).toBeUndefined();
    expect(o.spec.versions).toEqual([
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      },
    ]);
  });

  it('HorizontalPodAutoscaler v2beta1: metric targets nested as v2 has them', () => {
    const o = byKind('HorizontalPodAutoscaler');
    expect(o.apiVersion).toBe('autoscaling/v2');
    expect(o.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
      },
      {
        type: 'Pods',
        pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } },
      },
    ]);
  });

  it('EndpointSlice: topology -> nodeName and zone; other keys reported', () => {
    const o = byKind('EndpointSlice');
    expect(o.apiVersion).toBe('discovery.orch.io/v1');
    expect(o.endpoints[0]).toEqual({ addresses: ['10.0.0.1'], nodeName: 'node-a', zone: 'z1' });
    expect(notesOf('EndpointSlice').some((n) => n.includes('rack'))).toBe(true);
  });

  it('SubjectAccessReview: spec.group -> spec.groups', () => {
    const o = byKind('SubjectAccessReview');
    expect(o.apiVersion).toBe('authorization.orch.io/v1');
    expect(o.spec.groups).toEqual(['devs']);
    expect(o.spec.group).toBeUndefined();
  });

  it('CertificateSigningRequest: usages written out, a missing signerName reported', () => {
    const o = byKind('CertificateSigningRequest');
    expect(o.apiVersion).toBe('certificates.orch.io/v1');
    expect(o.spec.usages).toEqual(['digital signature', 'key encipherment']);
    expect(notesOf('CertificateSigningRequest').some((n) => n.startsWith('spec.signerName'))).toBe(true);
  });

  it('PodSecurityPolicy: left out, with a note naming the replacement', () => {
    expect(byKind('PodSecurityPolicy')).toBeUndefined();
    const r = result.reports.find((x) => x.kind === 'PodSecurityPolicy')!;
    expect(r.dropped).toBe(true);
    expect(r.notes[0]).toMatch(/pod security admission/);
  });

  it('objects at served versions pass through unchanged', () => {
    expect(byKind('ConfigMap')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'untouched', namespace: 'NS' },
      data: { a: 'b' },
    });
  });

  it('--output-version converts only what it names', () => {
    const r = convertManifests(text, { outputVersion: 'apps/v1' });
    const out = parseAllDocuments(r.text).map((d) => d.toJS());
    expect(out.find((d) => d.kind === 'Deployment').apiVersion).toBe('apps/v1');
    expect(out.find((d) => d.kind === 'Ingress').apiVersion).toBe('networking.orch.io/v1beta1');
    expect(r.reports.find((x) => x.kind === 'Ingress')!.notes[0]).toMatch(/not converted/);
  });

  it('the kubernetes dialect: k8s.io groups read and written, x-kubernetes- extension', () => {
    const r = convertManifests(
      'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: a.b.c}\nspec: {group: b.c, version: v1, preserveUnknownFields: true, names: {plural: a, kind: A}}\n',
      { dialect: 'kubernetes' },
    );
    const o = parseAllDocuments(r.text)[0]!.toJS();
    expect(o.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(o.spec.versions[0].schema.openAPIV3Schema).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(o.spec.preserveUnknownFields).toBe(false);
  });

  it('the command: notes on stderr, exit 1 when an object could not be converted, 2 on usage errors', async () => {
    const r = await cli(['convert', '-f', FIXTURE]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/PodSecurityPolicy restricted policy\/v1beta1 -> \(left out\)/);
    expect(r.out).toMatch(/kind: Ingress/);
    expect((await cli(['convert'])).code).toBe(2);
    expect((await cli(['convert', '-f', FIXTURE, '--output-version', 'not a version'])).code).toBe(2);
  });
});
