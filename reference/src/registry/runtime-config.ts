// `--runtime-config` as a Kubernetes 1.28 API server reads it: comma-separated `key[=value]`
// entries (a later entry wins) with the keys
//   api/all, api/ga, api/beta, api/alpha   every group version of that stage (value true|false)
//   <group>/<version>                      one group version (value a Go bool; bare means true)
//   <group>/<version>/<resource>           one resource of it (lowercase plural)
//   v1, api/v1 (and v1/..., api/v1/...)    the core group version, as 1.28 reads them: the whole of it
//   api/legacy                             deprecated, no effect (a warning says so)
// Parsing (this file) needs nothing but the text; checkRuntimeConfig then holds the keys to the
// group versions and resources the server has. The messages are 1.28's where 1.28 has one.
import { parseGoBool } from '../features/feature-gates.ts';

export type StageMatcher = 'api/all' | 'api/ga' | 'api/beta' | 'api/alpha';

/** The stage matchers in the order 1.28 applies them, whatever the order of the flag. */
export const STAGE_MATCHERS: readonly StageMatcher[] = ['api/all', 'api/ga', 'api/beta', 'api/alpha'];

export interface RuntimeConfig {
  /** Stage matchers given, in STAGE_MATCHERS order. */
  matchers: [StageMatcher, boolean][];
  /** `<group>/<version>` (the core group: `/v1`) -> served. */
  versions: Map<string, boolean>;
  /** `<group>/<version>/<resource>` -> served; wins over its group version. */
  resources: Map<string, boolean>;
  /** Warnings to print at start (deprecated keys). */
  warnings: string[];
}

export const EMPTY_RUNTIME_CONFIG: RuntimeConfig = {
  matchers: [],
  versions: new Map(),
  resources: new Map(),
  warnings: [],
};

export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
}

/** What the server has, for checkRuntimeConfig: group -> version -> resources. */
export type RegisteredApis = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

/** 1.28's ConfigurationMap: `k=v` or bare `k` (value ""), trimmed, empty entries skipped, a later key wins. */
function entries(s: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const raw of s.split(',')) {
    const e = raw.trim();
    if (!e) continue;
    const i = e.indexOf('=');
    const k = (i < 0 ? e : e.slice(0, i)).trim();
    m.delete(k);
    m.set(k, i < 0 ? '' : e.slice(i + 1).trim());
  }
  return m;
}

/**
 * 1.28 (validateAPIPriorityAndFairness): with API priority and fairness on, the flowcontrol
 * version its controller uses may not be switched off, by name, by api/beta or by api/all (the
 * first of these the flag sets decides). The refusal's message, or undefined.
 */
export function priorityAndFairnessConflict(s: string): string | undefined {
  const m = entries(s);
  for (const key of ['flowcontrol.apiserver.orch.io/v1beta3', 'api/beta', 'api/all']) {
    const v = m.get(key);
    if (v === 'false')
      return `--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true and --feature-gates=APIPriorityAndFairness=true`;
    if (v === 'true') return undefined;
  }
  return undefined;
}

/** Parses the flag's value; throws RuntimeConfigError for what 1.28 refuses before looking at its groups. */
export function parseRuntimeConfig(s: string): RuntimeConfig {
  const raw = entries(s);
  const warnings: string[] = [];
  // 1.28 (kube-apiserver options): the core group version is `/v1` whatever follows `v1/` or
  // `api/v1/`; api/legacy is dropped
  const m = new Map<string, string>();
  for (const [k, v] of raw) {
    if (k === 'api/legacy') {
      warnings.push(
        '--runtime-config: api/legacy is deprecated, and will be removed in a future version; it has no effect',
      );
      continue;
    }
    if (k === 'v1' || k.startsWith('v1/') || k === 'api/v1' || k.startsWith('api/v1/')) {
      m.delete('/v1');
      m.set('/v1', v);
    } else {
      m.delete(k);
      m.set(k, v);
    }
  }
  if (m.size === 1 && m.get('api/all') === 'false')
    throw new RuntimeConfigError('invalid key with only api/all=false');
  const rc: RuntimeConfig = { matchers: [], versions: new Map(), resources: new Map(), warnings };
  for (const matcher of STAGE_MATCHERS) {
    const v = m.get(matcher);
    if (v === undefined) continue;
    if (v !== 'true' && v !== 'false') throw new RuntimeConfigError(`invalid value ${matcher}=${v}`);
    rc.matchers.push([matcher, v === 'true']);
  }
  for (const [key, value] of m) {
    if ((STAGE_MATCHERS as readonly string[]).includes(key)) continue;
    const tokens = key.split('/');
    if (tokens.length !== 2 && tokens.length !== 3)
      throw new RuntimeConfigError(`runtime-config invalid key ${key}`);
    const on = value === '' ? true : parseGoBool(value);
    if (on === undefined)
      throw new RuntimeConfigError(
        `invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
    const gv = `${tokens[0]}/${tokens[1]}`;
    if (tokens.length === 2) {
      rc.versions.set(gv, on);
      continue;
    }
    const resource = tokens[2]!;
    if (resource.toLowerCase() !== resource)
      throw new RuntimeConfigError(
        `invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`,
      );
    rc.resources.set(`${gv}/${resource}`, on);
  }
  return rc;
}

/** Keys naming what the server does not have: unknown groups (1.28), versions (1.28), resources (this server). */
export function checkRuntimeConfig(rc: RuntimeConfig, apis: RegisteredApis): void {
  const keys = [...rc.versions.keys(), ...rc.resources.keys()];
  const unknownGroups = [...new Set(keys.map((k) => k.split('/')[0]!).filter((g) => !apis.has(g)))];
  if (unknownGroups.length) throw new RuntimeConfigError(`unknown api groups ${unknownGroups.join(',')}`);
  for (const k of keys) {
    const [group, version, resource] = k.split('/') as [string, string, string | undefined];
    const resources = apis.get(group)!.get(version);
    const gv = group ? `${group}/${version}` : version;
    if (!resources) throw new RuntimeConfigError(`group version ${gv} that has not been registered`);
    if (resource !== undefined && !resources.has(resource))
      throw new RuntimeConfigError(
        `invalid key ${gv}/${resource}: group version ${gv} has no resource ${JSON.stringify(resource)} (it has: ${[...resources].sort().join(', ')})`,
      );
  }
}
