// SelfSubjectReview (authentication.orch.io/v1, v1beta1 and v1alpha1, cluster-scoped, create
// only, not stored): who am I? status.userInfo is the caller as the server sees it
// (`kubectl auth whoami`; doc3 "Self review").
import { obj } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef } from '../types.ts';
import { reviewKind, userInfoSchema } from './review-common.ts';
import { AUTHENTICATION_GROUP } from './tokenreview.ts';

export const selfSubjectReviewDef: ResourceDef = reviewKind({
  group: AUTHENTICATION_GROUP,
  versions: ['v1', 'v1beta1', 'v1alpha1'],
  kind: 'SelfSubjectReview',
  namespaced: false,
  schema: objectSchema({ status: obj({ userInfo: userInfoSchema }) }),
  review: (o, ctx) => {
    const u = ctx.user;
    const userInfo: Record<string, unknown> = { username: u.username };
    if (u.uid) userInfo.uid = u.uid;
    if (u.groups.length) userInfo.groups = u.groups;
    if (u.extra && Object.keys(u.extra).length) userInfo.extra = u.extra;
    return { ...o, status: { userInfo } };
  },
});
