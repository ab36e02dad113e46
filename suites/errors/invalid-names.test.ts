// Property-based: for any candidate name, a ConfigMap create succeeds exactly when the name is a
// DNS subdomain (Kubernetes' rule for ConfigMap names: at most 253 characters of dot-separated
// lowercase alphanumeric labels with inner '-'), and is refused otherwise with a 422 Status
// whose causes name metadata.name. fast-check prints seed and path of a failure; the edges of
// the rule stay in EXAMPLES and run every time.
import fc from 'fast-check';
import { describe } from 'vitest';
import { check, checkStatus, checkStatusObject, isDnsSubdomain, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import { configMap, paths, useNamespace } from '../../harness/src/fixtures.ts';
import { propertySettings } from '../../harness/src/session.ts';

const isSubdomain = isDnsSubdomain;

const nameArb: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?){0,2}$/),
  fc.string({
    unit: fc.constantFrom('a', 'b', '0', '9', '-', '.', '_', 'A', 'Z', ' ', '/', '%', 'é'),
    minLength: 0,
    maxLength: 12,
  }),
  fc.integer({ min: 250, max: 256 }).map((n) => `${'a'.repeat(n - 2)}.b`),
);

const EXAMPLES: [string][] = [
  [''],
  ['a'],
  ['-a'],
  ['a-'],
  ['a..b'],
  ['.'],
  ['A'],
  ['a_b'],
  [`${'a'.repeat(251)}.b`], // 253 characters: the longest valid name
  [`${'a'.repeat(252)}.b`], // 254 characters
];

describe('errors: invalid names (property-based)', () => {
  const ns = useNamespace('errors-names');

  conformance(
    {
      id: 'errors/law/invalid-names',
      title:
        'Law: a ConfigMap create succeeds exactly when its name is a DNS subdomain; otherwise it answers a 422 Invalid Status naming metadata.name',
      doc: 1,
      section: 'Errors',
      place:
        'The JSON shape of an error body: not shown (Kubernetes: 422 Invalid with a cause on metadata.name for a name that is not a DNS subdomain)',
      level: 'BEYOND',
    },
    async ({ client }) => {
      await fc.assert(
        fc.asyncProperty(nameArb, async (name) => {
          const r = await client.post(paths.configmaps(ns.name), configMap(name));
          const at = `name ${show(name)} (${name.length} characters)`;
          if (isSubdomain(name)) {
            checkStatus(r, 201, undefined, `${at} is a DNS subdomain`);
            await client.delete(paths.configmap(ns.name, name));
            return;
          }
          checkStatus(r, 422, 'Invalid', `${at} is not a DNS subdomain`);
          checkStatusObject(r, `${at}: every error is a Status object`);
          const causes = r.statusObj!.details?.causes ?? [];
          check(
            causes.some((c) => c.field === 'metadata.name'),
            'a cause for field metadata.name',
            show(r.statusObj!.details),
            at,
          );
        }),
        { ...propertySettings(40), examples: EXAMPLES },
      );
    },
  );
});
