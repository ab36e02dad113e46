// SelfSubjectRulesReview (authorization.orch.io/v1, cluster-scoped, create only, not
// stored): what may I do in spec.namespace? (`kubectl auth can-i --list`) The namespace is
// required: without it the review is a 400, as Kubernetes answers it.
import { errors } from '../../errors/status.ts';
import { arr, bool, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef } from '../types.ts';
import { invalidIf, metadataProblems, type Reviewers, reviewKind, specOf } from './review-common.ts';
import { AUTHORIZATION_GROUP } from './subjectaccessreview.ts';

const strings = arr(str());

export function selfSubjectRulesReviewDef(reviewers: Reviewers): ResourceDef {
  const def = reviewKind({
    group: AUTHORIZATION_GROUP,
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
    schema: objectSchema({
      spec: obj({ namespace: str() }),
      status: obj({
        resourceRules: arr(
          obj({ verbs: strings, apiGroups: strings, resources: strings, resourceNames: strings }),
        ),
        nonResourceRules: arr(obj({ verbs: strings, nonResourceURLs: strings })),
        incomplete: bool(),
        evaluationError: str(),
      }),
    }),
    review: (o, ctx) => {
      invalidIf(def, metadataProblems(o, false));
      const ns = specOf(o).namespace;
      if (typeof ns !== 'string' || ns === '') throw errors.badRequest('no namespace on request');
      const r = reviewers.rules(ctx.user, ns);
      const status: Record<string, unknown> = {
        resourceRules: r.resourceRules,
        nonResourceRules: r.nonResourceRules,
        incomplete: r.incomplete,
      };
      if (r.evaluationError) status.evaluationError = r.evaluationError;
      return { ...o, status };
    },
  });
  return def;
}
