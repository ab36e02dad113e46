// The layering check (`npm run layers`, .dependency-cruiser.mjs) bites: small fixture trees
// shaped like the repository are written to a temporary directory (outside the repository, so
// typecheck, lint, vitest and the real `npm run layers` never see them) and cruised with the
// same rules file and the same folders as the npm script; each tree reports exactly the
// violations it was built to have, and a tree that keeps every rule reports none.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'layers-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The folders and the rules file of `npm run layers`, read from package.json so this test
// cruises exactly what the npm script cruises.
const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.layers;
const words = script.trim().split(/\s+/);
const folders = words.slice(1, words.indexOf('--config'));
const rulesFile = join(root, words[words.indexOf('--config') + 1]!);

let options: ICruiseOptions;
beforeAll(async () => {
  options = await extractDepcruiseOptions(rulesFile);
});

type Tree = Record<string, string>;
let trees = 0;
function write(tree: Tree): string {
  const dir = join(tmp, `tree-${trees++}`);
  // every folder the script names exists (depcruise refuses a missing one)
  for (const folder of folders) mkdirSync(join(dir, folder), { recursive: true });
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** One line per violation: `rule: from → to`; a cycle as `rule: a → b → ... → a`, from its smallest module. */
function describeViolations(result: ICruiseResult): string[] {
  return result.summary.violations
    .map((v) => {
      if (v.cycle) {
        const ring = [v.from, ...v.cycle.map((step) => step.name).slice(0, -1)];
        const start = ring.indexOf([...ring].sort()[0]!);
        const rotated = [...ring.slice(start), ...ring.slice(0, start)];
        return `${v.rule.name}: ${[...rotated, rotated[0]].join(' → ')}`;
      }
      return `${v.rule.name}: ${v.from} → ${v.to}`;
    })
    .sort();
}

async function cruiseTree(tree: Tree): Promise<ICruiseResult> {
  const dir = write(tree);
  const { output } = await cruise(folders, { ...structuredClone(options), baseDir: dir });
  if (typeof output === 'string') throw new Error('expected the cruise result, got a report');
  // a check that saw nothing would pass vacuously: every fixture file was cruised
  const seen = new Set(output.modules.map((m) => m.source));
  for (const path of Object.keys(tree)) expect(seen, path).toContain(path);
  return output;
}

const violations = async (tree: Tree) => describeViolations(await cruiseTree(tree));

// An upward import in the server, a suite reaching into the server, and a cycle with one leg
// an `import type` (type-only cycles count).
const bad: Tree = {
  'reference/src/registry/x.ts': "import { y } from '../handlers/y.ts';\nexport const x = y;\n",
  'reference/src/handlers/y.ts': 'export const y = 1;\n',
  'reference/src/z.ts': 'export const z = 1;\n',
  'suites/a.test.ts': "import { z } from '../reference/src/z.ts';\nexport const a = z;\n",
  'scripts/p.ts': "import type { Q } from './q.ts';\nexport const p = (q: Q) => q;\n",
  'scripts/q.ts': "import { p } from './p.ts';\nexport type Q = typeof p;\n",
};

describe('npm run layers', () => {
  it('cruises the repository parts with the committed rules file', () => {
    expect(folders).toEqual(['reference', 'harness', 'lifeline', 'faults', 'suites', 'scripts', 'reports']);
    expect(rulesFile).toBe(join(root, '.dependency-cruiser.mjs'));
    expect(options.tsPreCompilationDeps).toBe(true);
  });

  it('reports exactly the upward import, the suite reaching into the server and the type-only cycle', async () => {
    expect(await violations(bad)).toEqual([
      'layer-registry: reference/src/registry/x.ts → reference/src/handlers/y.ts',
      'no-circular: scripts/p.ts → scripts/q.ts → scripts/p.ts',
      'suites-only-harness: suites/a.test.ts → reference/src/z.ts',
    ]);
  });

  it('reports nothing for a tree that keeps every rule', async () => {
    const clean: Tree = {
      // leaf libraries import each other and npm-free node builtins
      'reference/src/util/clone.ts': "import { inspect } from 'node:util';\nexport const clone = inspect;\n",
      'reference/src/errors/status.ts':
        "import { clone } from '../util/clone.ts';\nexport const status = clone;\n",
      'reference/src/apply/engine.ts':
        "import { status } from '../errors/status.ts';\nimport { sel } from '../selectors/labels.ts';\nexport const apply = [status, sel];\n",
      'reference/src/selectors/labels.ts': 'export const sel = 1;\n',
      // storage: leaf, and config.ts for its option types only
      'reference/src/storage/memory.ts':
        "import type { ServerOptions } from '../config.ts';\nimport { apply } from '../apply/engine.ts';\nexport const memory = (o: ServerOptions) => [o, apply];\n",
      'reference/src/registry/store.ts':
        "import { memory } from '../storage/memory.ts';\nexport const store = memory;\n",
      'reference/src/registry/kinds/pod.ts':
        "import { store } from '../store.ts';\nexport const pod = store;\n",
      // controllers are clients of the registry
      'reference/src/controllers/manager.ts':
        "import { pod } from '../registry/kinds/pod.ts';\nexport const manager = pod;\n",
      // a stage imports the stages before it and everything below
      'reference/src/authentication/authn.ts':
        "import { manager } from '../controllers/manager.ts';\nimport { type ServerOptions } from '../config.ts';\nexport const authn = (o: ServerOptions) => [o, manager];\n",
      'reference/src/authorization/authz.ts':
        "import { authn } from '../authentication/authn.ts';\nexport const authz = authn;\n",
      'reference/src/impersonation/as.ts':
        "import { authz } from '../authorization/authz.ts';\nexport const as = authz;\n",
      'reference/src/admission/chain.ts':
        "import { authn } from '../authentication/authn.ts';\nimport { authz } from '../authorization/authz.ts';\nimport { as } from '../impersonation/as.ts';\nexport const chain = [authn, authz, as];\n",
      'reference/src/handlers/read.ts':
        "import { chain } from '../admission/chain.ts';\nexport const read = chain;\n",
      // http/ sees requests
      'reference/src/http/server.ts':
        "import type { IncomingMessage } from 'node:http';\nimport { read } from '../handlers/read.ts';\nexport const serve = (r: IncomingMessage) => [r, read];\n",
      // wiring imports anything in a layer
      'reference/src/config.ts':
        "import { clone } from './util/clone.ts';\nexport interface ServerOptions { port: number }\nexport const DEFAULTS = clone;\n",
      'reference/src/index.ts':
        "import { createServer } from 'node:https';\nimport { DEFAULTS } from './config.ts';\nimport { serve } from './http/server.ts';\nexport const build = [createServer, DEFAULTS, serve];\n",
      // tests and scripts are free (but for cycles)
      'reference/test/store.test.ts':
        "import { store } from '../src/registry/store.ts';\nexport const t = store;\n",
      'harness/src/client.ts': "import { request } from 'node:http';\nexport const client = request;\n",
      'harness/test/client.test.ts':
        "import { build } from '../../reference/src/index.ts';\nimport { client } from '../src/client.ts';\nexport const t = [build, client];\n",
      'suites/support.ts':
        "import { client } from '../harness/src/client.ts';\nexport const support = client;\n",
      'suites/a.test.ts':
        "import { readFileSync } from 'node:fs';\nimport { support } from './support.ts';\nexport const a = [readFileSync, support];\n",
      'scripts/run.ts':
        "import { build } from '../reference/src/index.ts';\nimport { a } from '../suites/a.test.ts';\nimport { finish } from '../reports/finish.ts';\nexport const run = [build, a, finish];\n",
      'reports/finish.ts':
        "import { client } from '../harness/src/client.ts';\nexport const finish = client;\n",
      // the fault package: its own modules and the server it puts faults in front of; its tests are free
      'faults/proxy.ts': "import { request } from 'node:http';\nexport const proxy = request;\n",
      'faults/watch/faults.ts': "import { proxy } from '../proxy.ts';\nexport const FAULTS = [proxy];\n",
      'faults/test/meta.test.ts':
        "import { FAULTS } from '../watch/faults.ts';\nimport { a } from '../../suites/a.test.ts';\nimport { build } from '../../reference/src/index.ts';\nexport const t = [FAULTS, a, build];\n",
    };
    expect(await violations(clean)).toEqual([]);
  });

  // One tree per rule, each with the single import that breaks it.
  const cases: [rule: string, tree: Tree, violation: string][] = [
    [
      'no-circular (both legs `import { type ... }`, across parts)',
      {
        'harness/test/u.ts': "import { type V } from '../../scripts/v.ts';\nexport type U = V;\n",
        'scripts/v.ts': "import type { U } from '../harness/test/u.ts';\nexport type V = U | 1;\n",
      },
      'no-circular: harness/test/u.ts → scripts/v.ts → harness/test/u.ts',
    ],
    [
      'not-to-unresolvable',
      { 'scripts/s.ts': "import { gone } from './gone.ts';\nexport const s = gone;\n" },
      'not-to-unresolvable: scripts/s.ts → ./gone.ts',
    ],
    [
      'suites-only-harness (scripts/)',
      {
        'suites/b.test.ts': "import { run } from '../scripts/run.ts';\nexport const b = run;\n",
        'scripts/run.ts': 'export const run = 1;\n',
      },
      'suites-only-harness: suites/b.test.ts → scripts/run.ts',
    ],
    [
      'suites-only-harness (reports/, type-only)',
      {
        'suites/b.test.ts': "import type { Row } from '../reports/matrix.ts';\nexport type B = Row;\n",
        'reports/matrix.ts': 'export type Row = string;\n',
      },
      'suites-only-harness: suites/b.test.ts → reports/matrix.ts',
    ],
    [
      'harness-not-to-reference-or-suites (reference/)',
      {
        'harness/src/h.ts':
          "import { build } from '../../reference/src/index.ts';\nexport const h = build;\n",
        'reference/src/index.ts': 'export const build = 1;\n',
      },
      'harness-not-to-reference-or-suites: harness/src/h.ts → reference/src/index.ts',
    ],
    [
      'harness-not-to-reference-or-suites (suites/)',
      {
        'harness/src/h.ts': "import { support } from '../../suites/support.ts';\nexport const h = support;\n",
        'suites/support.ts': 'export const support = 1;\n',
      },
      'harness-not-to-reference-or-suites: harness/src/h.ts → suites/support.ts',
    ],
    [
      'faults-apart (the reference)',
      {
        'reference/src/util/u.ts':
          "import { FAULTS } from '../../../faults/watch/faults.ts';\nexport const u = FAULTS;\n",
        'faults/watch/faults.ts': 'export const FAULTS = [];\n',
      },
      'faults-apart: reference/src/util/u.ts → faults/watch/faults.ts',
    ],
    [
      'faults-apart (the harness)',
      {
        'harness/src/h.ts': "import { proxy } from '../../faults/proxy.ts';\nexport const h = proxy;\n",
        'faults/proxy.ts': 'export const proxy = 1;\n',
      },
      'faults-apart: harness/src/h.ts → faults/proxy.ts',
    ],
    [
      'faults-not-to-suites',
      {
        'faults/watch/faults.ts':
          "import { support } from '../../suites/support.ts';\nexport const FAULTS = [support];\n",
        'suites/support.ts': 'export const support = 1;\n',
      },
      'faults-not-to-suites: faults/watch/faults.ts → suites/support.ts',
    ],
    [
      'lifeline-alone',
      {
        'lifeline/owned.ts': "import { h } from '../harness/src/h.ts';\nexport const o = h;\n",
        'harness/src/h.ts': 'export const h = 1;\n',
      },
      'lifeline-alone: lifeline/owned.ts → harness/src/h.ts',
    ],
    [
      'reference-self-contained',
      {
        'reference/src/util/u.ts': "import { h } from '../../../harness/src/h.ts';\nexport const u = h;\n",
        'harness/src/h.ts': 'export const h = 1;\n',
      },
      'reference-self-contained: reference/src/util/u.ts → harness/src/h.ts',
    ],
    [
      'layer-leaf (the apply engine is a leaf library)',
      {
        'reference/src/apply/handler.ts': "import { s } from '../storage/s.ts';\nexport const h = s;\n",
        'reference/src/storage/s.ts': 'export const s = 1;\n',
      },
      'layer-leaf: reference/src/apply/handler.ts → reference/src/storage/s.ts',
    ],
    [
      'layer-storage',
      {
        'reference/src/storage/s.ts': "import { r } from '../registry/kinds/r.ts';\nexport const s = r;\n",
        'reference/src/registry/kinds/r.ts': 'export const r = 1;\n',
      },
      'layer-storage: reference/src/storage/s.ts → reference/src/registry/kinds/r.ts',
    ],
    [
      'layer-registry (type-only)',
      {
        'reference/src/registry/types.ts':
          "import type { Audit } from '../audit/log.ts';\nexport type T = Audit;\n",
        'reference/src/audit/log.ts': 'export type Audit = string;\n',
      },
      'layer-registry: reference/src/registry/types.ts → reference/src/audit/log.ts',
    ],
    [
      'layer-controllers',
      {
        'reference/src/controllers/c.ts':
          "import { chain } from '../admission/chain.ts';\nexport const c = chain;\n",
        'reference/src/admission/chain.ts': 'export const chain = 1;\n',
      },
      'layer-controllers: reference/src/controllers/c.ts → reference/src/admission/chain.ts',
    ],
    [
      'layer-registry (controllers are above it)',
      {
        'reference/src/registry/r.ts': "import { c } from '../controllers/c.ts';\nexport const r = c;\n",
        'reference/src/controllers/c.ts': 'export const c = 1;\n',
      },
      'layer-registry: reference/src/registry/r.ts → reference/src/controllers/c.ts',
    ],
    [
      'layer-authorization (handlers are above the stages)',
      {
        'reference/src/authorization/authz.ts':
          "import { read } from '../handlers/read.ts';\nexport const z = read;\n",
        'reference/src/handlers/read.ts': 'export const read = 1;\n',
      },
      'layer-authorization: reference/src/authorization/authz.ts → reference/src/handlers/read.ts',
    ],
    [
      'layer-authorization (admission is a later stage)',
      {
        'reference/src/authorization/configure.ts':
          "import type { AdmissionChain } from '../admission/chain.ts';\nexport type C = AdmissionChain;\n",
        'reference/src/admission/chain.ts': 'export interface AdmissionChain { n: number }\n',
      },
      'layer-authorization: reference/src/authorization/configure.ts → reference/src/admission/chain.ts',
    ],
    [
      'layer-authentication (no stage before it)',
      {
        'reference/src/authentication/a.ts':
          "import { z } from '../impersonation/z.ts';\nexport const a = z;\n",
        'reference/src/impersonation/z.ts': 'export const z = 1;\n',
      },
      'layer-authentication: reference/src/authentication/a.ts → reference/src/impersonation/z.ts',
    ],
    [
      'reports-apart (type-only)',
      {
        'reports/matrix.ts':
          "import type { ManifestEntry } from '../scripts/manifest.ts';\nexport type M = ManifestEntry;\n",
        'scripts/manifest.ts': 'export interface ManifestEntry { id: string }\n',
      },
      'reports-apart: reports/matrix.ts → scripts/manifest.ts',
    ],
    [
      'layer-handlers',
      {
        'reference/src/handlers/watch.ts':
          "import { respond } from '../http/respond.ts';\nexport const w = respond;\n",
        'reference/src/http/respond.ts': 'export const respond = 1;\n',
      },
      'layer-handlers: reference/src/handlers/watch.ts → reference/src/http/respond.ts',
    ],
    [
      'layer-http',
      {
        'reference/src/http/server.ts': "import { listen } from '../index.ts';\nexport const s = listen;\n",
        'reference/src/index.ts': 'export const listen = 1;\n',
      },
      'layer-http: reference/src/http/server.ts → reference/src/index.ts',
    ],
    [
      'layer-wiring',
      {
        'reference/src/index.ts': "import { authn } from './auth/authn.ts';\nexport const build = authn;\n",
        'reference/src/auth/authn.ts': 'export const authn = 1;\n',
      },
      'layer-wiring: reference/src/index.ts → reference/src/auth/authn.ts',
    ],
    [
      'config-type-only',
      {
        'reference/src/storage/s.ts':
          "import { DEFAULTS } from '../config.ts';\nexport const s = DEFAULTS;\n",
        'reference/src/config.ts': 'export const DEFAULTS = {};\n',
      },
      'config-type-only: reference/src/storage/s.ts → reference/src/config.ts',
    ],
    [
      'not-in-a-layer',
      {
        'reference/src/auth/admission.ts': "import { s } from '../storage/s.ts';\nexport const a = s;\n",
        'reference/src/storage/s.ts': 'export const s = 1;\n',
      },
      'not-in-a-layer: reference/src/auth/admission.ts → reference/src/storage/s.ts',
    ],
    [
      'no-node-http-below-http (type-only)',
      {
        'reference/src/handlers/scope.ts':
          "import type { IncomingMessage } from 'node:http';\nexport type Req = IncomingMessage;\n",
      },
      'no-node-http-below-http: reference/src/handlers/scope.ts → http',
    ],
    [
      'no-node-http-below-http (node:tls in storage)',
      { 'reference/src/storage/s.ts': "import { connect } from 'node:tls';\nexport const s = connect;\n" },
      'no-node-http-below-http: reference/src/storage/s.ts → tls',
    ],
  ];
  it.each(cases)('%s', async (_rule, tree, violation) => {
    expect(await violations(tree)).toEqual([violation]);
  });

  it('fails the npm script (non-zero exit) naming each violation with its rule and import', async () => {
    const dir = write(bad);
    const bin = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    const args = [
      ...words.slice(1, words.indexOf('--config')),
      '--config',
      rulesFile,
      ...words.slice(words.indexOf('--config') + 2),
    ];
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, [bin, ...args], { cwd: dir }, (_error, stdout) =>
        resolve({ code: child.exitCode, stdout }),
      );
    });
    expect(code).not.toBe(0);
    expect(stdout).toContain('layer-registry: reference/src/registry/x.ts → reference/src/handlers/y.ts');
    expect(stdout).toContain('suites-only-harness: suites/a.test.ts → reference/src/z.ts');
    expect(stdout).toMatch(/no-circular: scripts\/p\.ts → \s*scripts\/q\.ts →\s*scripts\/p\.ts/);
    expect(stdout).toContain('3 dependency violations');
  });
});
