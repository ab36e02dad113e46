// Faults against authorization (role-based access control as Kubernetes 1.28 does it, the
// access reviews, impersonation as doc3 § Authentication states it): each breaks one rule,
// and suites/authorization must catch it. The cases act as users of their own making through
// impersonation by the run's administrator, whose credentials the faults reuse.

import { AdminCredentials, header, resentAsAdmin, withoutImpersonation } from '../auth-util.ts';
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
import { bodyOf, mapJson } from '../util.ts';

const admin = new AdminCredentials();
const ACCESS_REVIEW = /\/(subjectaccessreviews|selfsubjectaccessreviews|localsubjectaccessreviews)$/;
const isPost = (r: ProxiedRequest, re: RegExp) => r.method === 'POST' && re.test(r.url.pathname);

export const HOOKS: FaultHooks[] = [
  {
    name: 'authz-sar-ignores-groups',
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
    request: (r) => (isPost(r, /\/selfsubjectreviews$/) ? withoutImpersonation(r) : r),
  },
  {
    name: 'authz-forbidden-served-as-admin',
    ...resentAsAdmin(admin, (r, res) => res.status === 403 && header(r, 'impersonate-user') !== undefined),
  },
  {
    name: 'authz-escalation-allowed',
    ...resentAsAdmin(
      admin,
      (_r, res) =>
        res.status === 403 &&
        /attempting to grant RBAC permissions not currently held/.test(res.body.toString('utf8')),
    ),
  },
  {
    name: 'authz-rules-review-names-dropped',
    response: (r, res) =>
      isPost(r, /\/selfsubjectrulesreviews$/)
        ? mapJson(res, (j) => {
            for (const rule of j?.status?.resourceRules ?? []) delete rule.resourceNames;
            return j;
          })
        : res,
  },
];
