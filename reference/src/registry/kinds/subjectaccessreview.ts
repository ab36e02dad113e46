// SubjectAccessReview (authorization.orch.io/v1, cluster-scoped, create only, not stored):
// may this user (spec.user, groups, extra, uid) do this (resource or non-resource attributes)?

import type { StatusCause } from '../../errors/status.ts';
import { arr, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import type { ResourceDef, UserInfo } from '../types.ts';
import { causesOf } from './common.ts';
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

/** What a namespaced review checks besides: its spec against the namespace of its path. */
export type LocalProblems = (o: KObject, spec: Record<string, unknown>, namespace: string) => StatusCause[];

/**
 * A review of a user's access: SubjectAccessReview, or (given `local`) one about the namespace
 * of its path, which `local` checks and the answer carries (LocalSubjectAccessReview).
 */
export function subjectAccessReviewDef(reviewers: Reviewers, local?: LocalProblems): ResourceDef {
  const def = reviewKind({
    group: AUTHORIZATION_GROUP,
    kind: local ? 'LocalSubjectAccessReview' : 'SubjectAccessReview',
    namespaced: local !== undefined,
    schema: objectSchema({
      spec: obj({ ...accessSpecFields, user: str(), groups: arr(str()), extra: extraSchema, uid: str() }),
      status: accessStatusSchema,
    }),
    review: (o, _ctx, at) => {
      const spec = specOf(o);
      const causes = causesOf(metadataProblems(o, local !== undefined), accessSpecProblems(spec));
      if (local) causes.push(...local(o, spec, at.namespace));
      const user = typeof spec.user === 'string' ? spec.user : '';
      const groups = Array.isArray(spec.groups) ? (spec.groups as string[]) : [];
      if (!user && groups.length === 0)
        causes.invalidShown('spec.user', '""', 'at least one of user or group must be specified');
      invalidIf(def, causes);
      const who: UserInfo = { username: user, groups: [...groups] };
      if (typeof spec.uid === 'string' && spec.uid) who.uid = spec.uid;
      if (spec.extra && typeof spec.extra === 'object') who.extra = spec.extra as Record<string, string[]>;
      const answered = local ? { ...o, metadata: { ...o.metadata, namespace: at.namespace } } : o;
      return answerAccess(reviewers, answered, accessCheck(who, spec));
    },
  });
  return def;
}
