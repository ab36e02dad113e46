// Layering rules, checked by `npm run layers` (part of `npm test`) with dependency-cruiser.
// harness/test/layers.test.ts runs these same rules on small fixture trees to prove they bite.
//
// Paths are relative to the directory depcruise runs in (the repository root). Every rule is
// `severity: 'error'`, so any violation makes `npm run layers` (and `npm test`) fail.
//
// Type-only imports (`import type`, `import { type X }`) count like any other import, in the
// cycle rule and in the layer rules: `tsPreCompilationDeps: true` below keeps them in the graph
// (without it TypeScript's import elision would hide them). The one exception is
// `reference/src/config.ts`, which lower layers may import with `import type` only.

const SRC = '^reference/src/';

// reference/src layers, lowest first. A layer may import itself and the layers before it.
const LAYERS = [
  // 1. leaf libraries (the server-side apply engine included): no server state; may import each other
  {
    name: 'leaf',
    folders: [
      'util',
      'errors',
      'schema',
      'selectors',
      'content',
      'patch',
      'apply',
      'cel',
      'nodeagent',
      'features',
    ],
  },
  // 2. storage
  { name: 'storage', folders: ['storage'] },
  // 3. registry (with registry/kinds/)
  { name: 'registry', folders: ['registry'] },
  // 4. controllers: clients of the store (the controller manager's work), never of requests
  { name: 'controllers', folders: ['controllers'] },
  // 5-11. the stages of a request, each a layer of its own, in the order of what they use: a
  // stage may import the stages before it, never one after. Impersonation asks the authorizer
  // whether the user may impersonate (as Kubernetes' impersonation filter does), so it comes after
  // authorization although a request meets it first; admission plugins ask the authorizer too.
  { name: 'authentication', folders: ['authentication'] },
  { name: 'authorization', folders: ['authorization'] },
  { name: 'impersonation', folders: ['impersonation'] },
  // API priority and fairness: a request's FlowSchema and priority level (after impersonation,
  // before authorization, as Kubernetes' filter chain runs them)
  { name: 'flowcontrol', folders: ['flowcontrol'] },
  { name: 'admission', folders: ['admission'] },
  { name: 'audit', folders: ['audit'] },
  { name: 'metrics', folders: ['metrics'] },
  { name: 'health', folders: ['health'] },
  // 12. one handler per verb
  { name: 'handlers', folders: ['handlers'] },
  // 13. HTTP: the only layer that sees a request
  { name: 'http', folders: ['http'] },
].map((layer) => ({ ...layer, path: `${SRC}(${layer.folders.join('|')})/` }));
// 14. wiring: may import anything in reference/src that belongs to a layer. The top-level files,
// the command line's option sections (options/), what `serve` does (app/) and the components
// build() assembles (server/).
const WIRING = `${SRC}((index|cli|config|kubeconfig|etcd-process|testing)\\.ts$|(options|app|server)/)`;
const CONFIG = `${SRC}config\\.ts$`;
const LAYERED = [...LAYERS.map((layer) => layer.path), WIRING];
const HTTP = LAYERS.find((layer) => layer.name === 'http').path;

// one rule per layer: `layer-<name>`
const layerRules = LAYERS.map((layer, i) => {
  const below = LAYERS.slice(0, i);
  const folders = layer.folders.map((folder) => `${folder}/`).join(', ');
  return {
    name: `layer-${layer.name}`,
    comment:
      `reference/src layer ${i + 1} "${layer.name}" (${folders}) may import only its own layer` +
      (below.length ? ` and the layers below it (${below.map((l) => l.name).join(', ')})` : '') +
      ': a lower layer never knows about the layers built on it, so each layer can be read, ' +
      'tested and replaced without the ones above, and a change above never ripples down. ' +
      'Importing a folder that is in no layer is flagged too. config.ts: see config-type-only.',
    severity: 'error',
    from: { path: layer.path },
    to: { path: SRC, pathNot: [...LAYERS.slice(0, i + 1).map((l) => l.path), CONFIG] },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import cycles anywhere (product, tests, scripts). Cycles that close only through ' +
        '`import type` count too: a type-only cycle still ties the modules together (neither can ' +
        'be understood, moved or split off alone) and is usually a layering mistake in waiting.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'Every import must resolve to a file, an npm package or a node builtin: an import ' +
        'depcruise cannot follow would silently escape all the other rules.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'suites-only-harness',
      comment:
        'Conformance suites test any server through the harness: they may import only harness/, ' +
        'other files in suites/, npm packages and node builtins; never the reference server ' +
        '(that would test it from the inside), scripts/ or reports/.',
      severity: 'error',
      from: { path: '^suites/' },
      to: {
        pathNot: ['^(suites|harness)/', '(^|/)node_modules/'],
        dependencyTypesNot: ['core'],
        couldNotResolve: false,
      },
    },
    {
      name: 'harness-not-to-reference-or-suites',
      comment:
        'The harness is how suites reach any endpoint: it must not depend on one server ' +
        '(reference/) nor on its own users (suites/). harness/test/ is free.',
      severity: 'error',
      from: { path: '^harness/', pathNot: '^harness/test/' },
      to: { path: '^(reference|suites)/' },
    },
    {
      name: 'faults-apart',
      comment:
        'The fault catalogue (faults/) is a tool of the project, not of the suites: neither the ' +
        'suites nor the harness may import it (a suite that knew its faults could not be judged ' +
        'by them), and the reference never does.',
      severity: 'error',
      from: { path: '^(suites|harness/src|reference/src)/' },
      to: { path: '^faults/' },
    },
    {
      name: 'faults-not-to-suites',
      comment:
        'Faults break the rules the suites check from the outside, through the proxy: they read no ' +
        "suite code (a fault shaped by a suite's internals would test the suite, not the rule).",
      severity: 'error',
      from: { path: '^faults/', pathNot: '^faults/test/' },
      to: { path: '^suites/' },
    },
    {
      name: 'lifeline-alone',
      comment:
        'lifeline/ starts child processes that end with their starter, for the reference, the ' +
        'harness and the scripts alike: it imports none of them.',
      severity: 'error',
      from: { path: '^lifeline/', pathNot: '^lifeline/test/' },
      to: { path: '^(reference|harness|suites|scripts|reports|faults)/' },
    },
    {
      name: 'reports-apart',
      comment:
        "reports/ turns a run's results into pages and files: it reads the harness's case and " +
        'expectation types, npm packages and node builtins, never the scripts that call it, the ' +
        'suites, the faults or the reference (a report that knew them could not be reused).',
      severity: 'error',
      from: { path: '^reports/' },
      to: { path: '^(scripts|suites|faults|reference|lifeline)/' },
    },
    {
      name: 'reference-self-contained',
      comment:
        'The reference server is the product: reference/src never imports the harness, the ' +
        'suites, the scripts, the reports or its own tests (it must run without any of them).',
      severity: 'error',
      from: { path: SRC },
      to: { path: '^(harness|suites|scripts|reports|reference/test)/' },
    },
    ...layerRules,
    {
      name: 'layer-wiring',
      comment:
        'Wiring (index.ts, cli.ts, config.ts, kubeconfig.ts, etcd-process.ts, options/, app/, server/) ' +
        'may import anything in reference/src, ' +
        'but only modules that belong to a layer: a folder in no layer has no place yet.',
      severity: 'error',
      from: { path: WIRING },
      to: { path: SRC, pathNot: LAYERED },
    },
    {
      name: 'config-type-only',
      comment:
        'config.ts is wiring, but lower layers take their option types from it: they may import ' +
        'it with `import type` only (no values, so no runtime dependency on the wiring).',
      severity: 'error',
      from: { path: SRC, pathNot: WIRING },
      to: { path: CONFIG, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-in-a-layer',
      comment:
        'Every module of reference/src belongs to a layer (see LAYERS) or to the wiring; a module ' +
        'elsewhere would escape the layer rules. Its imports are flagged until it moves.',
      severity: 'error',
      from: { path: SRC, pathNot: LAYERED },
      to: {},
    },
    {
      name: 'no-node-http-below-http',
      comment:
        'Only http/ and the wiring see requests and sockets: below http/ (handlers, stages, ' +
        'registry, storage, leaf libraries) node:http, node:https, node:http2, node:net and ' +
        'node:tls are not imported at all, not even `import type` (an IncomingMessage there ' +
        'means a layer reading the request instead of the request info http/ hands it). ' +
        'The one exception is util/https-json.ts, a client that calls out (an OpenID issuer, a ' +
        'token webhook) over node:https: no request of the server passes through it.',
      severity: 'error',
      from: { path: SRC, pathNot: [HTTP, WIRING, `${SRC}util/https-json\\.ts$`] },
      to: { dependencyTypes: ['core'], path: '^(node:)?(http|https|http2|net|tls)$' },
    },
  ],
  options: {
    // keep `import type` edges in the graph (see the top of this file)
    tsPreCompilationDeps: true,
    moduleSystems: ['es6', 'cjs'],
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: ['^out/', '^reports/out/', '(^|/)\\.orch/'] },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
