// CustomResourceDefinition apiextensions.orch.io/v1beta1 to v1: the per-definition `version`,
// `validation`, `subresources` and `additionalPrinterColumns` move into each entry of
// `versions`; the conversion webhook's client config and review versions move under
// `conversion.webhook`; printer columns' `JSONPath` is `jsonPath`; `scope` is written out
// (no default in v1); every version needs a structural schema, and `preserveUnknownFields: true`
// is not allowed (the schema's preserve-unknown-fields extension replaces it).
import type { Obj, Rule } from '../types.ts';

function columns(cols: Obj[] | undefined): Obj[] | undefined {
  return cols?.map(({ JSONPath, ...c }) => ({ ...c, jsonPath: JSONPath ?? c.jsonPath }));
}

export const crdRules: Rule[] = [
  {
    kinds: ['CustomResourceDefinition'],
    from: ['apiextensions.orch.io/v1beta1'],
    to: 'apiextensions.orch.io/v1',
    convert: (o, _from, notes, w) => {
      const spec = (o.spec ??= {});
      if (!spec.scope) {
        spec.scope = 'Namespaced';
        notes.push('spec.scope: set to Namespaced, the old default (v1 has none)');
      }
      let versions: Obj[] =
        spec.versions ?? (spec.version ? [{ name: spec.version, served: true, storage: true }] : []);
      versions = versions.map((v) => ({ ...v }));
      for (const v of versions) {
        v.schema ??= spec.validation;
        v.subresources ??= spec.subresources;
        v.additionalPrinterColumns = columns(v.additionalPrinterColumns ?? spec.additionalPrinterColumns);
        if (v.additionalPrinterColumns === undefined) delete v.additionalPrinterColumns;
        if (v.subresources === undefined) delete v.subresources;
        if (!v.schema?.openAPIV3Schema) {
          v.schema = { openAPIV3Schema: { type: 'object', [w('x-orch-preserve-unknown-fields')]: true } };
          notes.push(
            `spec.versions[${v.name}].schema: none was given; set to an object schema that keeps unknown fields (v1 requires a structural schema: write the real one)`,
          );
        }
      }
      spec.versions = versions;
      for (const f of ['version', 'validation', 'subresources', 'additionalPrinterColumns']) delete spec[f];
      const conv = spec.conversion;
      if (conv && (conv.webhookClientConfig || conv.conversionReviewVersions)) {
        conv.webhook = {
          clientConfig: conv.webhookClientConfig,
          conversionReviewVersions: conv.conversionReviewVersions ?? ['v1beta1'],
        };
        delete conv.webhookClientConfig;
        delete conv.conversionReviewVersions;
      }
      if (spec.preserveUnknownFields === true) {
        spec.preserveUnknownFields = false;
        for (const v of versions) v.schema.openAPIV3Schema[w('x-orch-preserve-unknown-fields')] ??= true;
        notes.push(
          `spec.preserveUnknownFields: true is not allowed in v1; set to false and ${w('x-orch-preserve-unknown-fields')}: true put on each schema root (better: mark only the fields that need it)`,
        );
      }
      return o;
    },
  },
];
