// Image patterns of a credential provider's matchImages (doc3: "patterns with optional port
// and path; globs allowed in domain labels, each glob matching one label"): a host of
// dot-separated labels, each letters, digits, '-' and '*' globs; then an optional `:port`
// and `/path`. No scheme. Checked as the kubelet 1.28 parses them (a URL without scheme), with
// a regular expression rather than the URL parser: WHATWG URL parsing accepts and rewrites more
// (percent-escapes, user info, international names) than a pattern may hold.

const LABEL = /^[a-zA-Z0-9*]([-a-zA-Z0-9*]*[a-zA-Z0-9*])?$/;
const PATTERN = /^([^/:]+)(?::(\d{1,5}))?(\/[^\s]*)?$/;

/** Why `s` is not an image pattern, or undefined when it is one. */
export function imagePatternProblem(s: string): string | undefined {
  if (s === '') return 'must not be empty';
  if (s.includes('://')) return 'must not have a scheme (write registry.example.com, not https://...)';
  const m = PATTERN.exec(s);
  if (!m) return 'must be a host with an optional :port and /path, e.g. *.registry.io:5000/team';
  if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535)) return 'the port must be 1 to 65535';
  for (const label of m[1]!.split('.'))
    if (!LABEL.test(label)) return `the domain label "${label}" is not a label or a glob of one`;
  return undefined;
}
