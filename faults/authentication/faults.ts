// Faults against doc3 § Authentication, § Review objects and § Self review: each breaks one
// rule, and suites/authentication must catch it. The fault meta test runs the area against a
// plain-HTTP proxy with the run's administrator token: the cases that need the
// authentication fixtures (client certificates over TLS, the fixtures' tokens) do not run
// there, so these faults are caught by the cases every target runs.

import { AdminCredentials, header, resentAsAdmin, withoutAuth } from '../auth-util.ts';
import type { Fault, ProxiedRequest } from '../proxy.ts';
import { bodyOf, failure, mapJson } from '../util.ts';

const SSR = /\/selfsubjectreviews$/;
const TOKEN_REVIEW = /\/tokenreviews$/;
const admin = new AdminCredentials();
/** Bearer tokens that were once accepted (revoked-token-served). */
const accepted = new Set<string>();

const isReview = (r: ProxiedRequest, re: RegExp) => r.method === 'POST' && re.test(r.url.pathname);

export const FAULTS: Fault[] = [
  {
    name: 'auth-invalid-token-anonymous',
    breaks: 'doc3 § Authentication: a request with an invalid bearer token is rejected with 401, not treated as anonymous (served as anonymous)',
    area: 'authentication',
    catchers: ['authentication/bearer/invalid-token-401', 'authentication/errors/invalid-bearer', 'authentication/bad-input/malformed-jwt'],
    response: (r, res, up) => (res.status === 401 && header(r, 'authorization') ? up.send(withoutAuth(r)) : res),
  },
  {
    name: 'auth-anonymous-as-admin',
    breaks: 'doc3 § Authentication: requests no method accepts are anonymous, user system:anonymous (served with the administrator\'s credentials)',
    area: 'authentication',
    catchers: ['authentication/anonymous/identity'],
    request: (r) => {
      admin.see(r);
      return header(r, 'authorization') ? r : (admin.asAdmin(r) ?? r);
    },
  },
  {
    name: 'auth-authenticated-group-dropped',
    breaks: 'doc3 § Authentication: every authenticated user gets the group system:authenticated (dropped from the SelfSubjectReview)',
    area: 'authentication',
    catchers: ['authentication/self-review/user-info', 'authentication/service-account/user-and-groups'],
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
    breaks: 'doc3 § Authentication, Service account token: groups system:serviceaccounts and system:serviceaccounts:<namespace> (the namespace group dropped)',
    area: 'authentication',
    catchers: ['authentication/service-account/user-and-groups'],
    response: (r, res) =>
      isReview(r, SSR) || isReview(r, TOKEN_REVIEW)
        ? mapJson(res, (j) => {
            const u = j?.status?.userInfo ?? j?.status?.user;
            if (u?.groups) u.groups = u.groups.filter((g: string) => !g.startsWith('system:serviceaccounts:'));
            return j;
          })
        : res,
  },
  {
    name: 'auth-revoked-token-served',
    breaks: 'doc3 § Authentication: with --service-account-lookup, tokens deleted through the API are revoked (a token once accepted is served on)',
    area: 'authentication',
    catchers: ['authentication/service-account/lookup-revokes'],
    ...resentAsAdmin(admin, (r, res) => {
      const auth = header(r, 'authorization');
      if (!auth) return false;
      if (res.status < 400) accepted.add(auth);
      return res.status === 401 && accepted.has(auth);
    }),
  },
  {
    name: 'auth-token-review-failure-as-401',
    breaks: 'doc3 § Errors: token review failure is authenticated: false with an optional error (answered as a 401 Status)',
    area: 'authentication',
    catchers: ['authentication/token-review/failure'],
    response: (r, res) => {
      if (!isReview(r, TOKEN_REVIEW) || res.status !== 201) return res;
      const j = bodyOf(res.body);
      if (j?.status?.authenticated) return res;
      return failure(401, 'Unauthorized', 'Unauthorized');
    },
  },
  {
    name: 'auth-token-review-audiences-dropped',
    breaks: 'Kubernetes (beyond doc3 § Review objects): a TokenReview answers the audiences the token is valid for in status.audiences (dropped)',
    area: 'authentication',
    catchers: ['authentication/token-review/audiences'],
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
    breaks: "doc3 § Self review: status.userInfo is filled with username, uid, groups, extra (the uid dropped)",
    area: 'authentication',
    catchers: ['authentication/self-review/user-info', 'authentication/service-account/user-and-groups'],
    response: (r, res) =>
      isReview(r, SSR)
        ? mapJson(res, (j) => {
            if (j?.status?.userInfo) delete j.status.userInfo.uid;
            return j;
          })
        : res,
  },
];
