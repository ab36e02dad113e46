// A reproducer: a bash script that sends a case's requests again, in order, with curl, and
// says whether the answer the failure is about came back as it did in the run.
//
// The rule: the script replays every step (a watch as a curl in the background, open as long
// as the run kept it open), then compares the answer to the failing step with the run's:
// status, content type and body (a watch: its event lines, BOOKMARKs left out), with the
// values a server picks anew each time masked (resourceVersion, uid, timestamps, continue
// tokens) and the run's object names replaced by the replay's. The same answer: the failure
// reproduces, exit 1. Another answer: it does not, exit 0, with the difference shown. A replay
// that could not be made (no curl, no answer at all to its first request): exit 2.
//
// Entry point: reproScript(steps, options); the steps are Exchanges (exchange.ts).
import { Captures, isText } from './captures.ts';
import type { Exchange } from './exchange.ts';
import { freshen, freshLines, uniqueParts } from './names.ts';
import { credentialHeader, JWT, KEY_REMOVED, type Secrets, scrub, TOKEN_REMOVED } from './secrets.ts';
import { HELPERS as HELPER_TEXT } from './helpers.ts';
import { heredocText, plainText, shellWord, type Text } from './text.ts';
import { chosenUids, labelUids } from './uids.ts';

export interface ReproOptions {
  /** The endpoint the run used: ORCH_ENDPOINT's default. */
  endpoint: string;
  /** Lines of the header comment (what failed, where the spec says so). */
  about?: string[];
  /** The step (0-based) whose answer the failure is about (default: the last). */
  failingStep?: number;
  /** How many leading steps made what the case needed before it ran (replayed, shown as setup). */
  setup?: number;
  /** Values never to write: the run's token, the case's own tokens. */
  secrets?: Secrets;
  /** curl's --max-time for one request, seconds (default 15). */
  timeoutS?: number;
}

/**
 * Keys whose values a server picks anew each time: masked before answers are compared (a uid
 * is compared by where it comes from: uids.ts).
 */
export const VOLATILE = [
  'resourceVersion',
  'continue',
  'creationTimestamp',
  'deletionTimestamp',
  'time',
  'lastTransitionTime',
  'lastHeartbeatTime',
  'lastProbeTime',
  'lastUpdateTime',
  'lastTimestamp',
  'firstTimestamp',
  'eventTime',
  'renewTime',
  'acquireTime',
  'startTime',
  'completionTime',
];

const COMMENT_CHARS = 300;

/** The script replaying `steps`. */
export function reproScript(steps: readonly Exchange[], o: ReproOptions): string {
  if (steps.length === 0) throw new Error('a reproducer needs at least one request');
  const failing = o.failingStep ?? steps.length - 1;
  if (failing < 0 || failing >= steps.length) throw new Error(`no step ${failing} among ${steps.length}`);
  const secrets = o.secrets ?? {};
  // secrets first: a token's own hex digits are no name to make fresh
  const parts = uniqueParts(
    steps.flatMap((x) =>
      [x.path, x.body === undefined ? '' : (bodyText(x.body) ?? '')].map((t) =>
        plainText(scrub([t], secrets)),
      ),
    ),
  );
  const caps = new Captures(steps);
  const clean = (t: Text) => freshen(scrub(t, secrets), parts);
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const short = (s: string, n = COMMENT_CHARS) => (s.length > n ? `${s.slice(0, n)}…` : s);

  const body: string[] = [];
  let heredocs = 0;
  const delimiter = (texts: string[]) => {
    let d = `ORCH_BODY${heredocs++ ? heredocs : ''}`;
    while (texts.some((t) => t.split('\n').includes(d))) d += '_';
    return d;
  };

  steps.forEach((x, i) => {
    const n = i + 1;
    steps.forEach((w, j) => {
      if (w.watchMs !== undefined && w.watchUntil === i) {
        const seen = (answerText(w.answer) ?? '')
          .split('\n')
          .filter((l) => l.trim() && !/"type"\s*:\s*"BOOKMARK"/.test(l));
        body.push(
          '',
          `# the run closed the watch of step ${j + 1} here, having seen ${seen.length} event${seen.length === 1 ? '' : 's'}`,
        );
        body.push(`watch_close ${j + 1} ${seen.length} ${Math.ceil((w.watchIdleMs ?? 0) / 50)}`);
      }
    });
    const path = clean(caps.path(i, x.path));
    const auth =
      x.auth === 'anonymous' ? 'anonymous' : typeof x.auth === 'object' ? `token${x.auth.token}` : 'default';
    const headerArgs: string[] = [];
    for (const [k, v] of Object.entries(x.headers ?? {})) {
      if (credentialHeader(k)) {
        headerArgs.push(`-H "${k}: \${ORCH_HEADER_${k.toUpperCase().replace(/-/g, '_')}:-}"`);
        continue;
      }
      for (const one of Array.isArray(v) ? v : [v])
        headerArgs.push(`-H ${shellWord(clean([`${k}: ${one}`]))}`);
    }
    const setup = o.setup && i < o.setup ? ' (setup: made before the case ran)' : '';
    body.push('', `# --- step ${n}${setup}: ${x.method} ${plainText(path)}`);
    for (const [k] of Object.entries(x.headers ?? {}))
      if (credentialHeader(k))
        body.push(
          `# (the case sent its own ${k} header; its value is not written: set ORCH_HEADER_${k.toUpperCase().replace(/-/g, '_')})`,
        );
    if (x.watchMs !== undefined) {
      const secs = Math.max(2, Math.ceil(x.watchMs / 1000) + 2);
      body.push(
        `watch_open ${n} ${auth} ${secs} ${shellWord(path)}${headerArgs.map((h) => ` ${h}`).join('')}`,
      );
      const events = (answerText(x.answer) ?? '').split('\n').filter((l) => l.trim());
      body.push(
        x.status
          ? `# the run's stream: ${x.status}, ${events.length} event${events.length === 1 ? '' : 's'} in ${(x.watchMs / 1000).toFixed(1)} s${events.length ? ':' : ''}`
          : `# the run got no answer${x.note ? `: ${oneLine(x.note)}` : ''}`,
      );
      for (const e of events.slice(0, 20)) body.push(`#   ${short(plainText(clean([e])), 200)}`);
      if (events.length > 20) body.push(`#   … ${events.length - 20} more`);
      return;
    }
    let stdin = '';
    let send = `send ${n} ${auth} ${x.method} ${shellWord(path)}`;
    if (x.body !== undefined) {
      const text = bodyText(x.body);
      if (text === undefined) {
        body.push(`# the body is binary: sent as the run sent it (object names in it are the run's)`);
        send = `printf '%s' '${Buffer.from(x.body).toString('base64')}' | base64 -d | ${send} --data-binary @-`;
      } else {
        const t = heredocText(clean(caps.body(i, [text])));
        const d = delimiter([t]);
        send = `body <<${d} | ${send} --data-binary @-`;
        stdin = `\n${t}\n${d}`;
      }
    }
    body.push(`${send}${headerArgs.map((h) => ` ${h}`).join('')}${stdin}`);
    body.push(`# the run got: ${answerComment(x, (s) => short(oneLine(plainText(clean([s])))))}`);
    const name = x.method === 'POST' && x.status >= 200 && x.status < 300 ? createdName(x.body) : undefined;
    if (name)
      body.push(`CREATED+=(${shellWord(clean([`${splitPath(x.path)}/${name}`]))})  # deleted at the end`);
  });
  const x = steps[failing]!;
  const chosen = (uid: string) => caps.chosen('uid', uid);
  /** A step's answer as the verdict compares it: labelled uids, fresh names, the server's values. */
  const wantOf = (k: number) => {
    const y = steps[k]!;
    const text = y.answer === undefined ? '' : answerText(y.answer);
    const others = new Map<number, string>();
    steps.forEach((z, j) => {
      const t = j === k ? undefined : answerText(z.answer);
      if (t) others.set(j + 1, t);
    });
    const binary = text === undefined;
    const lit = binary
      ? Buffer.from(y.answer as Buffer).toString('base64')
      : heredocText(clean(caps.body(k, [labelUids(text, others, chosen, y.watchMs !== undefined)])));
    // a watch that did not ask for BOOKMARKs must send none: they are compared then
    const kind =
      y.watchMs !== undefined
        ? /[?&]allowWatchBookmarks=(true|1)\b/.test(y.path)
          ? 'watchb'
          : 'watch'
        : binary
          ? 'binary'
          : 'text';
    return { step: k + 1, lit, binary, kind, x: y };
  };
  // the failing step, and the earlier reads of the same path (a list read in chunks): a fault
  // may show in any of them
  const samePath = (y: Exchange) => `${y.method} ${y.path.split('?')[0]}`;
  const compared = [
    ...(x.watchMs === undefined
      ? steps
          .map((y, k) => ({ y, k }))
          .filter(
            ({ y, k }) =>
              k < failing &&
              y.watchMs === undefined &&
              y.method === 'GET' &&
              samePath(y) === samePath(x) &&
              y.answer !== undefined,
          )
          .map(({ k }) => k)
      : []),
    failing,
  ].map(wantOf);
  const keepUids = chosenUids(
    steps.map((y) => (y.body === undefined ? '' : (bodyText(y.body) ?? ''))),
    chosen,
  );
  const wantLines = compared.flatMap((w) => {
    const d = delimiter([w.lit]);
    return [
      `WANT_CODE_${w.step}=${w.x.status}`,
      `WANT_TYPE_${w.step}=${shellWord([w.x.answerType ?? ''])}`,
      `WANT_BODY_${w.step}=$(cat <<${w.binary ? `'${d}'` : d}\n${w.lit}\n${d}\n)`,
      `WANT_ENDED_${w.step}=${w.x.watchEnded ? 1 : 0}`,
    ];
  });
  // the values later steps take from an answer are known once every step is rendered: each is
  // read right after its step
  const lines = [...body];
  for (const c of caps.used.values()) {
    const at = lines.findIndex(
      (l) => l.startsWith(`# --- step ${c.step + 2}:`) || l.startsWith(`# --- step ${c.step + 2} `),
    );
    lines.splice(at < 0 ? lines.length : at - 1, 0, `${c.name}=$(capture ${c.step + 1} ${c.key} ${c.index})`);
  }

  const about = (o.about ?? []).flatMap((l) => plainText(scrub([l], secrets)).split('\n'));
  return [
    '#!/usr/bin/env bash',
    ...about.map((l) => `# ${l}`.trimEnd()),
    '#',
    `# Replays ${steps.length} request${steps.length === 1 ? '' : 's'} in order with curl against $ORCH_ENDPOINT, with fresh object names,`,
    `# and compares the answer to step ${failing + 1} (the one the failure is about) with the run's: status,`,
    '# content type and body (a watch: its events), resourceVersions, uids, timestamps and continue',
    '# tokens masked. The same answer: the failure reproduces, exit 1. Another: it does not, exit 0.',
    '# Exit 2: the replay could not be made (no curl, no answer at all to the first request).',
    '#',
    '# Run:  ORCH_ENDPOINT=https://HOST:PORT ORCH_TOKEN=... bash this-file.sh',
    '#   ORCH_TOKEN        bearer token (sent only when set)',
    '#   ORCH_CA           CA bundle of the endpoint     ORCH_INSECURE=1  skip TLS verification',
    '#   ORCH_CLIENT_CERT, ORCH_CLIENT_KEY   client certificate and key files',
    '#   ORCH_MAX_TIME     seconds one request may take  ORCH_KEEP=1  keep the objects and answers',
    'set -u',
    setting('ORCH_ENDPOINT', o.endpoint.replace(/[\\"$`]/g, '\\$&').replace(/\/+$/, '')),
    `ORCH_ENDPOINT="\${ORCH_ENDPOINT%/}"`,
    ...['ORCH_TOKEN', 'ORCH_CA', 'ORCH_INSECURE', 'ORCH_CLIENT_CERT', 'ORCH_CLIENT_KEY'].map((v) =>
      setting(v, ''),
    ),
    setting('ORCH_MAX_TIME', String(o.timeoutS ?? 15)),
    setting('ORCH_KEEP', ''),
    ...freshLines(parts),
    `WANT1=${steps[0]!.status}`,
    ...ownTokenWarnings(steps),
    HELPERS,
    ...lines,
    '',
    compared.length > 1
      ? `# --- the verdict: the answers to steps ${compared.map((w) => w.step).join(', ')} in the run (the failing step and the earlier reads of its path)`
      : `# --- the verdict: step ${failing + 1}'s answer in the run`,
    ...wantLines,
    `STEPS=${steps.length}`,
    `KEEP_UIDS=${shellWord([keepUids.join(' ')])}`,
    `verdict ${compared.map((w) => `${w.step}:${w.kind}`).join(' ')}`,
    '',
  ].join('\n');
}

/** For each token the case sent of its own: which steps, and what stands in while it is unset. */
function ownTokenWarnings(steps: readonly Exchange[]): string[] {
  const uses = new Map<number, number[]>();
  steps.forEach((x, i) => {
    if (typeof x.auth === 'object') uses.set(x.auth.token, [...(uses.get(x.auth.token) ?? []), i + 1]);
  });
  return [...uses].map(
    ([n, at]) =>
      `[ -n "\${ORCH_TOKEN_${n}:-}" ] || echo "ORCH_TOKEN_${n} is not set (the case's own token, not written): step${at.length > 1 ? 's' : ''} ${at.join(', ')} send an invalid token in its place" >&2`,
  );
}

/** `NAME="${NAME:-value}"`: a variable the user may set, with the run's value as default. */
const setting = (name: string, value: string) => `${name}="\${${name}:-${value}}"`;

/** A body's text, or undefined when it is binary. */
function bodyText(b: string | Buffer): string | undefined {
  return typeof b === 'string' ? b : isText(b) ? b.toString('utf8') : undefined;
}
const answerText = (b: string | Buffer | undefined) => (b === undefined ? '' : bodyText(b));

function answerComment(x: Exchange, show: (s: string) => string): string {
  if (!x.status) return `no answer${x.note ? ` (${x.note.replace(/\s+/g, ' ')})` : ''}`;
  const t = answerText(x.answer);
  return [
    String(x.status),
    x.answerType ?? '',
    t === undefined ? `(${(x.answer as Buffer).length} bytes of binary)` : show(t),
  ]
    .filter(Boolean)
    .join(' ');
}

function splitPath(p: string): string {
  const q = p.indexOf('?');
  return (q < 0 ? p : p.slice(0, q)).replace(/\/+$/, '');
}

/** metadata.name of a create's JSON body. */
function createdName(b: string | Buffer | undefined): string | undefined {
  const t = b === undefined ? undefined : bodyText(b);
  if (!t) return undefined;
  try {
    const name = JSON.parse(t)?.metadata?.name;
    return typeof name === 'string' && /^[a-z0-9.:-]+$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

// a label (uids.ts) begins with @ and stays
const SED_VOLATILE = `s/"(${VOLATILE.join('|')})"[[:space:]]*:[[:space:]]*("[^"@][^"]*"|""|[0-9]+)/"\\1":"~"/g`;
// the JWT and private key patterns of secrets.ts, in sed's words
const SED_JWT = `s/${JWT.source.replace(/\\\./g, '[.]')}/${TOKEN_REMOVED}/g`;
const SED_KEY = `s/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[^"]*-----END \\1PRIVATE KEY-----/${KEY_REMOVED}/g`;

const HELPERS = HELPER_TEXT.replace('@SED_VOLATILE@', () => SED_VOLATILE)
  .replace('@SED_JWT@', () => SED_JWT)
  .replace('@SED_KEY@', () => SED_KEY);
