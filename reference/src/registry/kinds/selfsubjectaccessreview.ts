// SelfSubjectAccessReview (authorization.orch.io/v1, cluster-scoped, create only, not
// stored): may I (the caller, as authenticated or impersonated) do this?
import { obj } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef } from '../types.ts';
import {
  accessCheck,
  accessSpecFields,
  accessSpecProblems,
  accessStatusSchema,
  answerAccess,
  invalidIf,
  metadataProblems,
  type Reviewers,
  reviewKind,
  specOf,
} from './review-common.ts';
import { AUTHORIZATION_GROUP } from './subjectaccessreview.ts';

export function selfSubjectAccessReviewDef(reviewers: Reviewers): ResourceDef {
  const def = reviewKind({
    group: AUTHORIZATION_GROUP,
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    schema: objectSchema({ spec: obj(accessSpecFields), status: accessStatusSchema }),
    review: (o, ctx) => {
      const spec = specOf(o);
      invalidIf(def, [...metadataProblems(o, false), ...accessSpecProblems(spec)]);
      return answerAccess(reviewers, o, accessCheck(ctx.user, spec));
    },
  });
  return def;
}
