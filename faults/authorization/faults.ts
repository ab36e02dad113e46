// Faults against authorization (role-based access control as Kubernetes 1.28 does it, the
// access reviews, impersonation as doc3 § Authentication states it): each breaks one rule,
// and suites/authorization must catch it. The cases act as users of their own making through
// impersonation by the run's administrator, whose credentials the faults reuse.

import { AdminCredentials, header, resentAsAdmin, withoutImpersonation } from '../auth-util.ts';
import type { Fault, ProxiedRequest } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const admin = new AdminCredentials();
const ACCESS_REVIEW = /\/(subjectaccessreviews|selfsubjectaccessreviews|localsubjectaccessreviews)$/;
const isPost = (r: ProxiedRequest, re: RegExp) => r.method === 'POST' && re.test(r.url.pathname);

export const FAULTS: Fault[] = [
  {
    name: 'authz-sar-ignores-groups',
    breaks: "doc2 § Retired API versions and replacements: SubjectAccessReview's spec.groups (ignored: the review decides for the user alone)",
    area: 'authorization',
    catchers: ['authorization/review/subject-access-review-groups'],
    request: (r) => {
      if (!isPost(r, /\/subjectaccessreviews$/)) return r;
      const j = bodyOf(r.body);
      if (!j?.spec?.groups) return r;
      delete j.spec.groups;
      return { ...r, body: Buffer.from(JSON.stringify(j)) };
    },
  },
  {
    name: 'authz-access-review-always-allowed',
    breaks: 'Kubernetes (beyond doc3): an access review answers what the authorizer decides (always allowed)',
    area: 'authorization',
    catchers: [
      'authorization/review/self-subject-access-review',
      'authorization/review/subject-access-review-groups',
      'authorization/review/local-namespace-match',
      'authorization/rbac/subresource',
      'authorization/rbac/non-resource-urls',
      'authorization/law/rbac-model',
    ],
    response: (r, res) =>
      isPost(r, ACCESS_REVIEW)
        ? mapJson(res, (j) => {
            if (j?.status) j.status.allowed = true;
            return j;
          })
        : res,
  },
  {
    name: 'authz-impersonation-ignored',
    breaks: 'doc3 § Authentication, Impersonation headers: requests are evaluated as the target (the headers ignored on self reviews: the caller is reported)',
    area: 'authorization',
    catchers: ['authorization/impersonation/'],
    request: (r) => (isPost(r, /\/selfsubjectreviews$/) ? withoutImpersonation(r) : r),
  },
  {
    name: 'authz-forbidden-served-as-admin',
    breaks: 'Kubernetes (beyond doc3): nothing is granted to a user without a rule (a 403 for an impersonated user re-sent as the administrator)',
    area: 'authorization',
    catchers: ['authorization/rbac/', 'authorization/law/rbac-model', 'authorization/escalation/'],
    ...resentAsAdmin(admin, (r, res) => res.status === 403 && header(r, 'impersonate-user') !== undefined),
  },
  {
    name: 'authz-escalation-allowed',
    breaks: 'Kubernetes (beyond doc3): a role or binding that grants more than its creator holds is refused (re-sent as the administrator)',
    area: 'authorization',
    catchers: ['authorization/escalation/'],
    ...resentAsAdmin(
      admin,
      (_r, res) => res.status === 403 && /attempting to grant RBAC permissions not currently held/.test(res.body.toString('utf8')),
    ),
  },
  {
    name: 'authz-rules-review-names-dropped',
    breaks: "Kubernetes (beyond doc3): a SelfSubjectRulesReview lists the caller's rules as they are (resourceNames dropped)",
    area: 'authorization',
    catchers: ['authorization/review/self-subject-rules-review'],
    response: (r, res) =>
      isPost(r, /\/selfsubjectrulesreviews$/)
        ? mapJson(res, (j) => {
            for (const rule of j?.status?.resourceRules ?? []) delete rule.resourceNames;
            return j;
          })
        : res,
  },
];
