// doc3 § Endpoints, Health: /healthz (deprecated), /livez and /readyz answer 200 on a healthy
// server; `verbose` lists each check and ends with a line saying the check passed; `exclude`
// skips a check and lists it as excluded (with verbose too, and repeated); a single check has a
// path of its own. Exact texts the document does not show follow Kubernetes 1.28.
import { describe } from 'vitest';
import { check, checkEqual, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import {
  checkSomeChecks,
  ENDPOINTS,
  EXCLUDE_RULE,
  parseListing,
  SECTION,
  SINGLE_ROW,
  STATUS_RULE,
  VERBOSE_RULE,
  verbose,
} from './support.ts';

const ROW: Record<(typeof ENDPOINTS)[number], string> = {
  healthz: 'GET `/healthz` | deprecated since API version 1.16',
  livez: 'GET `/livez` | liveness',
  readyz: 'GET `/readyz` | readiness',
};
/** The rule (suites/rules/doc3.yaml) of each endpoint's row. */
const ROW_RULE: Record<(typeof ENDPOINTS)[number], string> = {
  healthz: 'doc3/health/get-healthz-deprecated-since-api-version',
  livez: 'doc3/health/get-livez-liveness',
  readyz: 'doc3/health/get-readyz-readiness',
};

describe('health: endpoints', () => {
  for (const endpoint of ENDPOINTS)
    conformance(
      {
        id: `health/status/${endpoint}`,
        title: `GET /${endpoint} on a healthy server answers 200`,
        doc: 3,
        section: SECTION,
        place: `${ROW[endpoint]}; ${STATUS_RULE}`,
        specRules: [ROW_RULE[endpoint], 'doc3/health/status-200-means-healthy-live-ready'],
        level: 'MUST',
      },
      async ({ client }) => {
        const r = await client.get(`/${endpoint}`);
        check(
          r.status === 200,
          `200 from /${endpoint}`,
          `${r.status}: ${show(r.text.slice(0, 400))}`,
          'a healthy server',
        );
      },
    );

  conformance(
    {
      id: 'health/status/ok-body',
      title: 'Without verbose, a passing endpoint answers the text "ok"',
      doc: 3,
      section: SECTION,
      place: `${STATUS_RULE} (the body of a passing endpoint: not shown; Kubernetes 1.28 answers "ok")`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const endpoint of ENDPOINTS) {
        const r = await client.get(`/${endpoint}`);
        checkEqual([r.status, r.text], [200, 'ok'], `/${endpoint} of a healthy server`);
      }
    },
  );

  for (const endpoint of ENDPOINTS)
    conformance(
      {
        id: `health/verbose/${endpoint}`,
        title: `/${endpoint}?verbose lists each check as [+]<name> ok and ends with a line saying the check passed`,
        doc: 3,
        section: SECTION,
        place: VERBOSE_RULE,
        specRules: ['doc3/health/query-verbose-prints-each-check-name'],
        level: 'MUST',
      },
      async ({ client }) => {
        const l = await verbose(client, endpoint);
        checkSomeChecks(l, endpoint);
        const body = l.lines.slice(0, -1);
        const odd = body.filter((x) => !/^\[[+-]\]\S+ /.test(x) && !x.startsWith('warn: '));
        checkEqual(
          odd,
          [],
          'every line before the last is a check: [+]<name> ok, or [-]<name> and why it failed',
        );
        check(
          /\bcheck passed$/.test(l.last),
          'a last line saying the check passed',
          show(l.last),
          'the listing ends with its verdict',
        );
      },
    );

  conformance(
    {
      id: 'health/verbose/kubernetes-wording',
      title: 'The verdict line is "<endpoint> check passed", as Kubernetes 1.28 writes it',
      doc: 3,
      section: SECTION,
      place: `${VERBOSE_RULE} (its exact words: not shown; Kubernetes 1.28)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      for (const endpoint of ENDPOINTS) {
        const l = await verbose(client, endpoint);
        checkEqual(l.last, `${endpoint} check passed`, `/${endpoint}?verbose`);
      }
    },
  );

  conformance(
    {
      id: 'health/exclude/one',
      title: 'exclude=<name> with verbose lists that check as "[+]<name> excluded: ok" instead of running it',
      doc: 3,
      section: SECTION,
      place: EXCLUDE_RULE,
      specRules: ['doc3/health/query-verbose-prints-each-check-name'],
      level: 'MUST',
    },
    async ({ client }) => {
      const all = await verbose(client, 'readyz');
      checkSomeChecks(all, 'readyz');
      const name = all.passed[0]!;
      const l = await verbose(client, 'readyz', [name]);
      check(
        l.status === 200,
        '200',
        `${l.status}: ${show(l.text.slice(0, 400))}`,
        'excluding a passing check',
      );
      check(
        l.excluded.includes(name) && !l.passed.includes(name),
        `"[+]${name} excluded: ok" and no "[+]${name} ok"`,
        show(l.lines),
        `exclude=${name}`,
      );
      check(/\bcheck passed$/.test(l.last), 'the verdict line last', show(l.last), 'verbose with exclude');
    },
  );

  conformance(
    {
      id: 'health/exclude/repeated',
      title: 'exclude may be given more than once: each named check is listed as excluded',
      doc: 3,
      section: SECTION,
      place: `${EXCLUDE_RULE} (several exclude parameters: not shown; Kubernetes 1.28 takes each)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const all = await verbose(client, 'livez');
      checkSomeChecks(all, 'livez');
      const names = all.passed.slice(0, 2);
      check(
        names.length === 2,
        'two passing checks to exclude',
        show(all.passed),
        'the case needs two checks',
      );
      const l = await verbose(client, 'livez', names);
      checkEqual(
        names.filter((n) => l.excluded.includes(n)),
        names,
        'each excluded check listed as excluded',
      );
      checkEqual(
        names.filter((n) => l.passed.includes(n)),
        [],
        'no excluded check run',
      );
    },
  );

  conformance(
    {
      id: 'health/exclude/unknown-warned',
      title: 'Excluding a check that does not exist still answers 200, with a warning line naming it',
      doc: 3,
      section: SECTION,
      place: `${EXCLUDE_RULE} (an unknown name: not shown; Kubernetes 1.28 warns "some health checks cannot be excluded")`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const l = await verbose(client, 'readyz', ['no-such-check']);
      check(
        l.status === 200,
        '200',
        `${l.status}: ${show(l.text.slice(0, 400))}`,
        'an unknown exclude is not a failure',
      );
      check(
        l.lines.includes('warn: some health checks cannot be excluded: no matches for "no-such-check"'),
        'the line: warn: some health checks cannot be excluded: no matches for "no-such-check"',
        show(l.lines),
        'the unknown name is reported',
      );
    },
  );

  conformance(
    {
      id: 'health/single/passing',
      title: 'GET /livez/<name> and /readyz/<name> for a passing check answer 200',
      doc: 3,
      section: SECTION,
      place: `${SINGLE_ROW}; ${STATUS_RULE}`,
      specRules: [
        'doc3/health/get-livez-check-name-get-readyz',
        'doc3/health/status-200-means-healthy-live-ready',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      for (const endpoint of ['livez', 'readyz'] as const) {
        const l = await verbose(client, endpoint);
        checkSomeChecks(l, endpoint);
        const name = l.passed.at(-1)!;
        const r = await client.get(`/${endpoint}/${name}`);
        check(
          r.status === 200,
          `200 from /${endpoint}/${name}`,
          `${r.status}: ${show(r.text.slice(0, 300))}`,
          'a passing check',
        );
      }
    },
  );

  conformance(
    {
      id: 'health/single/unknown',
      title: 'A single-check path naming no check answers 404',
      doc: 3,
      section: SECTION,
      place: `${SINGLE_ROW} (a name that is no check: not shown; Kubernetes 1.28 answers 404)`,
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.get('/readyz/no-such-check');
      const l = parseListing(r.status, r.text);
      check(r.status === 404, '404', `${r.status}: ${show(l.text.slice(0, 300))}`, 'no check of that name');
    },
  );
});
