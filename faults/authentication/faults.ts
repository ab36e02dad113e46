// Faults against doc3 § Authentication, § Review objects and § Self review: each breaks one
// rule, and suites/authentication must catch it. The fault meta test runs the area against a
// plain-HTTP proxy with the run's administrator token: the cases that need the
// authentication fixtures (client certificates over TLS, the fixtures' tokens) do not run
// there, so these faults are caught by the cases every target runs.

import { AdminCredentials, header, resentAsAdmin, withoutAuth } from '../auth-util.ts';
import type { FaultHooks, ProxiedRequest } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const SSR = /\/selfsubjectreviews$/;
const TOKEN_REVIEW = /\/tokenreviews$/;
const admin = new AdminCredentials();
/** Bearer tokens that were once accepted (revoked-token-served). */
const accepted = new Set<string>();

const isReview = (r: ProxiedRequest, re: RegExp) => r.method === 'POST' && re.test(r.url.pathname);

export const HOOKS: FaultHooks[] = [
  {
    name: 'auth-invalid-token-anonymous',
    response: (r, res, up) =>
      res.status === 401 && header(r, 'authorization') ? up.send(withoutAuth(r)) : res,
  },
  {
    name: 'auth-anonymous-as-admin',
    request: (r) => {
      admin.see(r);
      return header(r, 'authorization') ? r : (admin.asAdmin(r) ?? r);
    },
  },
  {
    name: 'auth-authenticated-group-dropped',
    response: (r, res) =>
      isReview(r, SSR)
        ? mapJson(res, (j) => {
            const u = j?.status?.userInfo;
            if (u?.groups) u.groups = u.groups.filter((g: string) => g !== 'system:authenticated');
            return j;
          })
        : res,
  },
  {
    name: 'auth-service-account-groups-dropped',
    response: (r, res) =>
      isReview(r, SSR) || isReview(r, TOKEN_REVIEW)
        ? mapJson(res, (j) => {
            const u = j?.status?.userInfo ?? j?.status?.user;
            if (u?.groups)
              u.groups = u.groups.filter((g: string) => !g.startsWith('system:serviceaccounts:'));
            return j;
          })
        : res,
  },
  {
    name: 'auth-revoked-token-served',
    ...resentAsAdmin(admin, (r, res) => {
      const auth = header(r, 'authorization');
      if (!auth) return false;
      if (res.status < 400) accepted.add(auth);
      return res.status === 401 && accepted.has(auth);
    }),
  },
  {
    name: 'auth-token-review-failure-as-401',
    response: (r, res) => {
      if (!isReview(r, TOKEN_REVIEW) || res.status !== 201) return res;
      const j = bodyOf(res.body);
      if (j?.status?.authenticated) return res;
      return failure(401, 'Unauthorized', 'Unauthorized');
    },
  },
  {
    name: 'auth-token-review-audiences-dropped',
    response: (r, res) =>
      isReview(r, TOKEN_REVIEW)
        ? mapJson(res, (j) => {
            if (j?.status) delete j.status.audiences;
            return j;
          })
        : res,
  },
  {
    name: 'auth-user-uid-dropped',
    response: (r, res) =>
      isReview(r, SSR)
        ? mapJson(res, (j) => {
            if (j?.status?.userInfo) delete j.status.userInfo.uid;
            return j;
          })
        : res,
  },
];
