// Runs an environment row at one place: the object holding the row's expression (a definition's
// rule, a policy's validation, a webhook's match condition) is created, and it is accepted (then
// removed), or refused with 422 Invalid and nothing stored, the cause at the expression's field
// saying `compilation failed: ` and then exactly the row's errors.
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import type { CaseContext } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { uniqueName } from '../../harness/src/fixtures.ts';
import {
  CRD_PATH,
  deleteDefinition,
  definitionsUnavailable,
  newDefinition,
  postDefinition,
} from './definition.ts';
import type { CompilePlace, EnvironmentRow } from './environment-files.ts';

const ADMISSION = 'admissionregistration.orch.io';
const POLICIES = `/apis/${ADMISSION}/v1beta1/validatingadmissionpolicies`;
const WEBHOOKS = `/apis/${ADMISSION}/v1/validatingwebhookconfigurations`;

/** The `spec` a rule is written on (`self`): a string, an integer and a list of strings, all bounded. */
const SPEC = {
  type: 'object',
  properties: {
    s: { type: 'string', maxLength: 32 },
    i: { type: 'integer' },
    xs: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 32 } },
  },
};

interface Written {
  /** The answer to the create. */
  r: Response;
  /** The field of the expression, as a cause names it. */
  field: string;
  /** Reads the object back (404 when nothing is stored). */
  read: () => Promise<Response>;
  remove: () => Promise<void>;
}

async function writeRule(t: CaseContext, expression: string): Promise<Written> {
  const unavailable = await definitionsUnavailable(t.client);
  if (unavailable) t.skip(unavailable);
  const d = newDefinition('env');
  const schema = {
    type: 'object',
    properties: { spec: { ...SPEC, 'x-orch-validations': [{ rule: expression }] } },
  };
  return {
    r: await postDefinition(t.client, d, schema),
    field: 'spec.validation.openAPIV3Schema.properties[spec].x-orch-validations[0].rule',
    read: () => t.client.get(`${CRD_PATH}/${d.name}`),
    remove: () => deleteDefinition(t.client, d),
  };
}

async function writePolicy(t: CaseContext, expression: string): Promise<Written> {
  const name = uniqueName('env');
  const r = await t.client.post(POLICIES, {
    apiVersion: `${ADMISSION}/v1beta1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
        ],
      },
      validations: [{ expression }],
    },
  });
  return {
    r,
    field: 'spec.validations[0].expression',
    read: () => t.client.get(`${POLICIES}/${name}`),
    remove: async () => void (await t.client.delete(`${POLICIES}/${name}`).catch(() => undefined)),
  };
}

async function writeMatchCondition(t: CaseContext, expression: string): Promise<Written> {
  const name = uniqueName('env');
  const r = await t.client.post(WEBHOOKS, {
    apiVersion: `${ADMISSION}/v1`,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'env.example.orch.io',
        clientConfig: { url: 'https://hooks.example.com/env' },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        // no object carries this label: the webhook (whose host does not exist) is never called
        objectSelector: { matchLabels: { 'conformance-inert': 'never-called' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        matchConditions: [{ name: 'c', expression }],
      },
    ],
  });
  return {
    r,
    field: 'webhooks[0].matchConditions[0].expression',
    read: () => t.client.get(`${WEBHOOKS}/${name}`),
    remove: async () => void (await t.client.delete(`${WEBHOOKS}/${name}`).catch(() => undefined)),
  };
}

const WRITERS: Record<CompilePlace, (t: CaseContext, e: string) => Promise<Written>> = {
  rule: writeRule,
  policy: writePolicy,
  'match-condition': writeMatchCondition,
};

const WHERE: Record<CompilePlace, string> = {
  rule: 'a custom definition whose rule',
  policy: 'a ValidatingAdmissionPolicy whose validation expression',
  'match-condition': 'a webhook configuration whose match condition',
};

const showCauses = (r: Response) =>
  (r.statusObj?.details?.causes ?? [])
    .map((c) => `{field: ${show(c.field)}, reason: ${show(c.reason)}, message: ${show(c.message)}}`)
    .join(', ') || '(no causes)';

export async function runEnvironmentRow(
  row: EnvironmentRow,
  place: CompilePlace,
  t: CaseContext,
): Promise<void> {
  const label = `create ${WHERE[place]} is ${show(row.expression)}, expected ${row.accepted ? 'accepted' : 'refused'}`;
  await t.step(label, async () => {
    const w = await WRITERS[place](t, row.expression);
    try {
      if (row.accepted) {
        checkStatus(w.r, 201, undefined, `${label}: the expression compiles`);
        return;
      }
      checkStatus(w.r, 422, 'Invalid', label);
      const want = `compilation failed: ${row.refused}`;
      const causes = w.r.statusObj?.details?.causes ?? [];
      check(
        causes.some(
          (c) => c.field === w.field && c.reason === 'FieldValueInvalid' && String(c.message).endsWith(want),
        ),
        `a cause at ${w.field}, reason FieldValueInvalid, whose message ends with ${show(want)}`,
        `${w.r.describe()} — causes: ${showCauses(w.r)}`,
        label,
      );
      const after = await w.read();
      check(
        after.status === 404,
        'nothing stored (404)',
        after.describe(),
        `${label}: a refused object is not created`,
      );
    } finally {
      if (w.r.status >= 200 && w.r.status < 300) await w.remove();
    }
  });
}
