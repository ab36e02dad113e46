// LocalSubjectAccessReview (authorization.orch.io/v1, namespaced, create only, not stored):
// a SubjectAccessReview about the namespace of its path, and that namespace only.

import { errors } from '../../errors/status.ts';
import { arr, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef, UserInfo } from '../types.ts';
import { fieldErr } from './common.ts';
import {
  accessCheck,
  accessSpecFields,
  accessSpecProblems,
  accessStatusSchema,
  answerAccess,
  extraSchema,
  invalidIf,
  metadataProblems,
  type Reviewers,
  reviewKind,
  specOf,
} from './review-common.ts';
import { AUTHORIZATION_GROUP } from './subjectaccessreview.ts';

export function localSubjectAccessReviewDef(reviewers: Reviewers): ResourceDef {
  const def = reviewKind({
    group: AUTHORIZATION_GROUP,
    kind: 'LocalSubjectAccessReview',
    namespaced: true,
    schema: objectSchema({
      spec: obj({ ...accessSpecFields, user: str(), groups: arr(str()), extra: extraSchema, uid: str() }),
      status: accessStatusSchema,
    }),
    review: (o, _ctx, at) => {
      const bodyNs = o.metadata?.namespace;
      if (bodyNs && bodyNs !== at.namespace)
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      const spec = specOf(o);
      const causes = [...metadataProblems(o, true), ...accessSpecProblems(spec)];
      // Kubernetes 1.28 validates the spec against metadata.namespace (the path's, once defaulted)
      const ra = spec.resourceAttributes as Record<string, unknown> | undefined;
      if (ra && (ra.namespace ?? '') !== at.namespace)
        causes.push(
          fieldErr.invalidShown(
            'spec.resourceAttributes.namespace',
            JSON.stringify(ra.namespace ?? ''),
            'must match metadata.namespace',
          ),
        );
      if (spec.nonResourceAttributes)
        causes.push(
          fieldErr.invalidShown(
            'spec.nonResourceAttributes',
            JSON.stringify(spec.nonResourceAttributes),
            'disallowed on this kind of request',
          ),
        );
      const user = typeof spec.user === 'string' ? spec.user : '';
      const groups = Array.isArray(spec.groups) ? (spec.groups as string[]) : [];
      if (!user && groups.length === 0)
        causes.push(
          fieldErr.invalidShown('spec.user', '""', 'at least one of user or group must be specified'),
        );
      invalidIf(def, causes);
      const who: UserInfo = { username: user, groups: [...groups] };
      if (typeof spec.uid === 'string' && spec.uid) who.uid = spec.uid;
      if (spec.extra && typeof spec.extra === 'object') who.extra = spec.extra as Record<string, string[]>;
      const answered = { ...o, metadata: { ...o.metadata, namespace: at.namespace } };
      return answerAccess(reviewers, answered, accessCheck(who, spec));
    },
  });
  return def;
}
