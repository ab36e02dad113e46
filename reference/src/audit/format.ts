// `--audit-log-format=legacy`: Kubernetes 1.28's one-line text of an event (a subset of it:
// who, from where, what and the response code).
import type { AuditEvent } from './types.ts';

/** Go's %q of a string (JSON's escapes; Go writes non-ASCII as is too). */
const q = (s: string) => JSON.stringify(s);

/** Go's RFC3339Nano: the fraction without trailing zeros. */
function rfc3339Nano(t: string): string {
  return t.replace(/\.(\d*?)0*Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
}

const quotedList = (l: readonly string[]) => l.map(q).join(',');

export function legacyLine(e: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (e.user.username) {
    username = e.user.username;
    if (e.user.groups?.length) groups = quotedList(e.user.groups);
  }
  let as = '<self>';
  let asGroups = '<lookup>';
  if (e.impersonatedUser) {
    as = e.impersonatedUser.username;
    if (e.impersonatedUser.groups) asGroups = quotedList(e.impersonatedUser.groups);
  }
  const namespace = e.objectRef?.namespace || '<none>';
  const response = e.responseStatus ? String(e.responseStatus.code) : '<deferred>';
  const ip = e.sourceIPs[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(e.requestReceivedTimestamp)} AUDIT: id=${q(e.auditID)} stage=${q(e.stage)} ip=${q(ip)} ` +
    `method=${q(e.verb)} user=${q(username)} groups=${q(groups)} as=${q(as)} asgroups=${q(asGroups)} ` +
    `user-agent=${q(e.userAgent ?? '')} namespace=${q(namespace)} uri=${q(e.requestURI)} response="${response}"`
  );
}
