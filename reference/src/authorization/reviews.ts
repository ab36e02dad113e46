// The review APIs, answered by this server's stages: access reviews by the authorizer chain
// (and the modes' rules), token reviews by the authentication methods (never anonymous),
// self reviews from the request's user. Installed into the registry at start.
import type { AuthenticationUnion } from '../authentication/union.ts';
import { Unauthenticated } from '../authentication/union.ts';
import { localSubjectAccessReviewDef } from '../registry/kinds/localsubjectaccessreview.ts';
import type { Reviewers } from '../registry/kinds/review-common.ts';
import { selfSubjectAccessReviewDef } from '../registry/kinds/selfsubjectaccessreview.ts';
import { selfSubjectReviewDef } from '../registry/kinds/selfsubjectreview.ts';
import { selfSubjectRulesReviewDef } from '../registry/kinds/selfsubjectrulesreview.ts';
import { subjectAccessReviewDef } from '../registry/kinds/subjectaccessreview.ts';
import { tokenReviewDef } from '../registry/kinds/tokenreview.ts';
import type { Registry } from '../registry/registry.ts';
import { isPromise } from '../util/maybe-async.ts';
import type { AuthorizationSetup } from './configure.ts';
import { aggregate } from './rbac/rbac-index.ts';

export function installReviews(
  registry: Registry,
  authz: AuthorizationSetup,
  authn: AuthenticationUnion,
): void {
  const reviewers: Reviewers = {
    authorize: (a) => authz.chain.authorize(a),
    rules: (user, namespace) => authz.rulesFor(user, namespace),
    async authenticateToken(token, audiences) {
      try {
        const answer = authn.authenticate({ headers: {}, token, audiences });
        const r = isPromise(answer) ? await answer : answer;
        return { user: r.user, audiences: r.audiences };
      } catch (e) {
        if (e instanceof Unauthenticated)
          return { error: aggregate(e.refusals.length ? e.refusals : ['Unauthorized']) };
        throw e;
      }
    },
  };
  for (const def of [
    subjectAccessReviewDef(reviewers),
    selfSubjectAccessReviewDef(reviewers),
    localSubjectAccessReviewDef(reviewers),
    selfSubjectRulesReviewDef(reviewers),
    tokenReviewDef(reviewers),
    selfSubjectReviewDef,
  ]) {
    registry.add(def);
    // kubectl's typed clients (auth can-i, auth whoami) call Kubernetes' group names
    // (in the Kubernetes dialect the group is that name already)
    const alias = def.group.replace(/\.orch\.io$/, '.k8s.io');
    if (alias !== def.group) registry.addAlias(def, alias);
  }
}
