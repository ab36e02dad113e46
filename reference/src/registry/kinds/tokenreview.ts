// TokenReview (authentication.orch.io/v1 and v1beta1, cluster-scoped, create only, not
// stored): who does this bearer token authenticate as, through the server's own
// authentication methods? Answered in the request's version (doc3 "Review objects").
import { errors } from '../../errors/status.ts';
import { arr, bool, obj, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { ResourceDef } from '../types.ts';
import { type Reviewers, reviewKind, specOf, userInfoSchema } from './review-common.ts';

export const AUTHENTICATION_GROUP = 'authentication.orch.io';

export function tokenReviewDef(reviewers: Reviewers): ResourceDef {
  return reviewKind({
    group: AUTHENTICATION_GROUP,
    versions: ['v1', 'v1beta1'],
    kind: 'TokenReview',
    namespaced: false,
    schema: objectSchema({
      spec: obj({ token: str(), audiences: arr(str()) }),
      status: obj({ authenticated: bool(), user: userInfoSchema, audiences: arr(str()), error: str() }),
    }),
    review: async (o) => {
      const spec = specOf(o);
      const token = typeof spec.token === 'string' ? spec.token : '';
      if (!token) throw errors.badRequest('token is required for TokenReview in authentication');
      const wanted = Array.isArray(spec.audiences) ? (spec.audiences as string[]) : undefined;
      const r = await reviewers.authenticateToken(token, wanted?.length ? wanted : undefined);
      const status: Record<string, unknown> = { authenticated: !!r.user };
      if (r.user) {
        // the audiences asked for must meet those the token is for, when the method says
        if (wanted?.length && r.audiences?.length && !r.audiences.some((a) => wanted.includes(a)))
          throw errors.internal('error validating audiences');
        const u: Record<string, unknown> = { username: r.user.username };
        if (r.user.uid) u.uid = r.user.uid;
        if (r.user.groups.length) u.groups = r.user.groups;
        if (r.user.extra && Object.keys(r.user.extra).length) u.extra = r.user.extra;
        status.user = u;
        if (r.audiences?.length) status.audiences = r.audiences;
      } else {
        status.user = {};
        if (r.error) status.error = r.error;
      }
      return { ...o, status };
    },
  });
}
