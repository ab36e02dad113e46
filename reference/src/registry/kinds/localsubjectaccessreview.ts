// LocalSubjectAccessReview (authorization.orch.io/v1, namespaced, create only, not stored):
// a SubjectAccessReview about the namespace of its path, and that namespace only.

import { errors } from '../../errors/status.ts';
import type { ResourceDef } from '../types.ts';
import { Causes } from './common.ts';
import type { Reviewers } from './review-common.ts';
import { type LocalProblems, subjectAccessReviewDef } from './subjectaccessreview.ts';

const localProblems: LocalProblems = (o, spec, namespace) => {
  const bodyNs = o.metadata?.namespace;
  if (bodyNs && bodyNs !== namespace)
    throw errors.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  const causes = new Causes();
  // Kubernetes 1.28 validates the spec against metadata.namespace (the path's, once defaulted)
  const ra = spec.resourceAttributes as Record<string, unknown> | undefined;
  if (ra && (ra.namespace ?? '') !== namespace)
    causes.invalidShown(
      'spec.resourceAttributes.namespace',
      JSON.stringify(ra.namespace ?? ''),
      'must match metadata.namespace',
    );
  if (spec.nonResourceAttributes)
    causes.invalidShown(
      'spec.nonResourceAttributes',
      JSON.stringify(spec.nonResourceAttributes),
      'disallowed on this kind of request',
    );
  return causes;
};

export function localSubjectAccessReviewDef(reviewers: Reviewers): ResourceDef {
  return subjectAccessReviewDef(reviewers, localProblems);
}
