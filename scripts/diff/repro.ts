// Reproducers: a bash script of curl commands that sends one side's requests again, in order.
// Kept behind this small interface (a list of wire requests) so that it can join the harness's
// own reproducer writer. Credentials are never written: the script reads them from the
// environment of whoever runs it.

/** One request as it went on the wire. */
export interface WireRequest {
  method: string;
  /** Path and query string, in the side's words. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ReproOptions {
  /** A line saying what the script reproduces. */
  title: string;
  /** The server the requests went to (the default of $SERVER). */
  server: string;
  requests: WireRequest[];
}

/** Single-quotes a string for bash. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The bash script that sends `requests` to $SERVER (default `server`), printing each status. */
export function curlScript(o: ReproOptions): string {
  const lines = [
    '#!/usr/bin/env bash',
    `# ${o.title.replace(/\n/g, ' ')}`,
    '# Credentials come from the environment, never from this file:',
    '#   TOKEN=... (bearer token) or CLIENT_CERT=file CLIENT_KEY=file; CA_FILE=file or INSECURE=1',
    'set -u',
    `SERVER="\${SERVER:-${o.server}}"`,
    'args=(--silent --show-error)',
    `if [ -n "\${TOKEN:-}" ]; then args+=(--header "Authorization: Bearer \${TOKEN}"); fi`,
    `if [ -n "\${CLIENT_CERT:-}" ]; then args+=(--cert "\${CLIENT_CERT}" --key "\${CLIENT_KEY:?CLIENT_KEY goes with CLIENT_CERT}"); fi`,
    `if [ -n "\${CA_FILE:-}" ]; then args+=(--cacert "\${CA_FILE}"); fi`,
    `if [ "\${INSECURE:-}" = 1 ]; then args+=(--insecure); fi`,
    '',
  ];
  o.requests.forEach((r, i) => {
    lines.push(`echo ${shellQuote(`### ${i + 1}. ${r.method} ${r.path}`)}`);
    const parts = ['curl', `"\${args[@]}"`, '--request', r.method];
    for (const [k, v] of Object.entries(r.headers)) {
      if (k.toLowerCase() === 'authorization') continue;
      parts.push('--header', shellQuote(`${k}: ${v}`));
    }
    if (r.body !== undefined) parts.push('--data-binary', shellQuote(r.body));
    // a watch stays open: its events so far are what the run read
    if (/[?&]watch=(1|true)(&|$)/.test(r.path)) parts.push('--max-time', '2');
    parts.push('--write-out', shellQuote('\\n-> %{http_code}\\n'), `"\${SERVER}"${shellQuote(r.path)}`);
    lines.push(parts.join(' '));
  });
  return `${lines.join('\n')}\n`;
}
