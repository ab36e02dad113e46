// doc2 § Deprecation policy, "Requests to a deprecated endpoint", for the versions of a custom
// definition marked `deprecated` (the suite makes one, definition.ts): the Warning header (the
// definition's deprecationWarning, else Kubernetes' default text), none at the version that is
// not deprecated, the gauge with its labels, and the audit annotation where the target's audit
// log is readable.
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { auditOffset, waitAuditEvent } from '../../harness/src/admission/audit-log.ts';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client } from '../../harness/src/client.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import { KIND, makeDefinition, type MultiVersionDefinition, PLURAL, useDefinition } from './definition.ts';
import {
  checkDeprecationWarning,
  checkGauge,
  DEPRECATED_ENDPOINT,
  deprecationWarnings,
  SECTION_POLICY,
} from './support.ts';

const CUSTOM = 'a custom definition version marked `deprecated`, with its `deprecationWarning`';

const gizmo = (d: MultiVersionDefinition, v: string, ns: string) => ({
  apiVersion: `${d.group}/${v}`,
  kind: KIND,
  metadata: { name: `g-${randomBytes(4).toString('hex')}`, namespace: ns },
  spec: { size: 1 },
});

describe('deprecation: deprecated versions of a custom definition', () => {
  const ns = useNamespace('deprecation-custom');
  const ready = useDefinition();

  conformance(
    {
      id: 'deprecation/custom/warning-text',
      title:
        'a list and a create at a deprecated custom version answer a 299 Warning with its deprecationWarning',
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (${CUSTOM})`,
      specRules: ['doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      const def = ready();
      const list = await c.get(def.collection('v1alpha1', ns.name));
      checkStatus(list, 200);
      checkDeprecationWarning(c, list, def.alphaWarning, 'GET of the v1alpha1 list');
      const made = await c.post(def.collection('v1alpha1', ns.name), gizmo(def, 'v1alpha1', ns.name));
      checkStatus(made, 201);
      checkDeprecationWarning(c, made, def.alphaWarning, 'POST at v1alpha1');
    },
  );

  conformance(
    {
      id: 'deprecation/custom/warning-default',
      title:
        'a deprecated custom version without a deprecationWarning answers 299 "<group>/<version> <Kind> is deprecated; use <group>/<newer version> <Kind>" (the newest served version above it that is not deprecated)',
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (${CUSTOM}; the text when none is given: not shown, Kubernetes 1.28's)`,
      level: 'BEYOND',
    },
    async ({ client: c }) => {
      const def = ready();
      const list = await c.get(def.collection('v1beta1', ns.name));
      checkStatus(list, 200);
      checkDeprecationWarning(
        c,
        list,
        `${def.group}/v1beta1 ${KIND} is deprecated; use ${def.group}/v1 ${KIND}`,
        'GET of the v1beta1 list',
      );
    },
  );

  conformance(
    {
      id: 'deprecation/custom/no-warning-current',
      title: 'the custom version that is not deprecated answers no deprecation Warning',
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (requests to versions that are not deprecated carry no such header)`,
      specRules: ['doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      const def = ready();
      for (const r of [
        await c.get(def.collection('v1', ns.name)),
        await c.post(def.collection('v1', ns.name), gizmo(def, 'v1', ns.name)),
      ]) {
        check(r.status === 200 || r.status === 201, 'a 200 or 201', r.describe());
        check(
          deprecationWarnings(r).length === 0,
          'no deprecation Warning from v1',
          show(deprecationWarnings(r)),
        );
      }
    },
  );

  conformance(
    {
      id: 'deprecation/custom/metric',
      title: `after a request to a deprecated custom version, /metrics has apiserver_requested_deprecated_apis for it with removed_release ""`,
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (${CUSTOM}: no removal release)`,
      specRules: ['doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1'],
      level: 'MUST',
    },
    async ({ client: c }) => {
      const def = ready();
      checkStatus(await c.get(def.collection('v1alpha1', ns.name)), 200);
      await checkGauge(
        c,
        { group: def.group, version: 'v1alpha1', resource: PLURAL, removed_release: '' },
        'a request to v1alpha1 was made',
      );
    },
    // the gauge is the server's own: the request and the scrape go to the same one
    { oneServer: true },
  );

  conformance(
    {
      id: 'deprecation/custom/audit',
      title:
        'the audit event of a request to a deprecated custom version has orch.io/deprecated "true" and no removed-release',
      doc: 2,
      section: SECTION_POLICY,
      place: `${DEPRECATED_ENDPOINT} (${CUSTOM})`,
      specRules: ['doc2/deprecation-policy/requests-deprecated-endpoint-api-version-1'],
      level: 'MUST',
    },
    async ({ client: c, target }) => {
      // the case's target is the one whose audit log is readable: the definition is made there
      const def = await makeDefinition(c);
      try {
        await checkAudit(c, target.declared.auditLog!, def);
      } finally {
        await def.close();
      }
    },
    { needs: { auditLog: true }, timeout: 60_000 },
  );
});

async function checkAudit(c: Client, log: string, def: MultiVersionDefinition): Promise<void> {
  const from = auditOffset(log);
  const mark = `audit-${randomBytes(4).toString('hex')}`;
  const path = `/apis/${def.group}/v1alpha1/${PLURAL}`;
  checkStatus(await c.get(path, { query: { labelSelector: mark } }), 200);
  const e = await waitAuditEvent(
    log,
    from,
    (x) => x?.stage === 'ResponseComplete' && typeof x.requestURI === 'string' && x.requestURI.includes(mark),
    { dialect: c.d },
  );
  check(!!e, `an audit event (ResponseComplete) of GET ${path} in ${log}`, 'none within 5 s');
  const ann = e.annotations ?? {};
  check(ann['orch.io/deprecated'] === 'true', 'annotation orch.io/deprecated: "true"', show(ann));
  check(
    !('orch.io/removed-release' in ann),
    'no orch.io/removed-release annotation (no removal release)',
    show(ann),
  );
}
