// SubjectAccessReview (authorization.orch.io/v1, cluster-scoped, create only, not stored):
// may this user (spec.user, groups, extra, uid) do this (resource or non-resource attributes)?

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

export const AUTHORIZATION_GROUP = 'authorization.orch.io';

export function subjectAccessReviewDef(reviewers: Reviewers): ResourceDef {
  const def = reviewKind({
    group: AUTHORIZATION_GROUP,
    kind: 'SubjectAccessReview',
    namespaced: false,
    schema: objectSchema({
      spec: obj({ ...accessSpecFields, user: str(), groups: arr(str()), extra: extraSchema, uid: str() }),
      status: accessStatusSchema,
    }),
    review: (o) => {
      const spec = specOf(o);
      const causes = [...metadataProblems(o, false), ...accessSpecProblems(spec)];
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
      return answerAccess(reviewers, o, accessCheck(who, spec));
    },
  });
  return def;
}
