// The registry: which resources are served at which group versions, their stores, and
// the discovery documents derived from them. Custom resources are added and removed at run time.
import type { KObject, Storage } from '../storage/types.ts';
import { PairMap } from '../util/pair-map.ts';
import { ApiEnablement } from './api-enablement.ts';
import { ConvertingStorage } from './converting-storage.ts';
import { checkRuntimeConfig, type RegisteredApis, type RuntimeConfig } from './runtime-config.ts';
import { storageVersionHash } from './storage-version-hash.ts';
import { GenericStore, type StoreOptions } from './store.ts';
import { SUBRESOURCES } from './subresources.ts';
import { apiVersionOf, type ResourceDef, storageVersionOf } from './types.ts';

export interface Served {
  def: ResourceDef;
  store: GenericStore;
}

/** Namespace keys kept at most (names come from requests: the bound keeps them from growing without end). */
const NAMESPACE_KEYS_KEPT = 10_000;

export class Registry {
  /** By group and version, then plural (the path's parts, not joined: see PairMap). */
  private readonly byPath = new PairMap<Map<string, Served>>();
  /** The store's keys of namespaces by name (see namespace()). */
  private readonly namespaceKeys = new Map<string, string>();
  /** byBucket's entries by group and plural, for lookups. */
  private readonly byResourceName = new PairMap<Served>();
  private readonly byBucket = new Map<string, Served>();
  /** group -> versions served (preferred first). */
  private readonly groups = new Map<string, string[]>();
  /** alias group -> the group it stands for (addAlias). */
  private readonly aliases = new Map<string, string>();
  /**
   * Which built-in group versions and resources are served (`--runtime-config`). It governs the
   * resources registered when it was configured (`group/plural`): resources added later (custom
   * resources) are served at every version they name.
   */
  private enablement = new ApiEnablement();
  private governed = new Set<string>();
  /** served()'s answers by definition and version. */
  private servedKnown = new WeakMap<ResourceDef, Map<string, boolean>>();
  private onChange: (() => void)[] = [];

  constructor(
    readonly storage: Storage,
    readonly storeOptions: StoreOptions,
  ) {}

  add(def: ResourceDef): GenericStore {
    const served = this.byBucket.get(`${def.group}/${def.plural}`);
    const store =
      served?.store ??
      new GenericStore(
        def,
        def.storedAs ? new ConvertingStorage(this.storage, def.storedAs) : this.storage,
        { get: (n) => this.namespace(n) },
        this.storeOptions,
        def.strategy.nameRule,
      );
    const entry = { def, store };
    this.byBucket.set(`${def.group}/${def.plural}`, entry);
    this.byResourceName.set(def.group, def.plural, entry);
    for (const v of def.versions) {
      this.setPath(def.group, v, def.plural, entry);
      const vs = this.groups.get(def.group) ?? [];
      if (!vs.includes(v)) vs.push(v);
      this.groups.set(def.group, sortVersions(vs));
    }
    for (const f of this.onChange) f();
    return store;
  }

  /**
   * Serves a resource under another group name too, listed in no discovery document and no
   * OpenAPI, and authorized as its own group (the review APIs under Kubernetes' group names,
   * which kubectl's typed clients call). Its replies carry the alias group.
   */
  addAlias(def: ResourceDef, group: string): void {
    const alias: ResourceDef = { ...def, group };
    const store = new GenericStore(
      alias,
      this.storage,
      { get: (n) => this.namespace(n) },
      this.storeOptions,
      def.strategy.nameRule,
    );
    for (const v of def.versions) this.setPath(group, v, def.plural, { def: alias, store });
    this.aliases.set(group, def.group);
    this.servedKnown = new WeakMap();
  }

  /**
   * Serves a stored resource under another group name too, listed in discovery just before its
   * own group (so a client that resolves the resource through discovery picks it) and authorized
   * as its own group: CertificateSigningRequest under Kubernetes' group name, which
   * `kubectl certificate approve` resolves through discovery and then requires. Objects are
   * the same objects; only `apiVersion` (and that of their managed fields) carries the other name.
   */
  addTwin(def: ResourceDef, group: string): void {
    const rename = (from: string, to: string) => (o: KObject) => renameGroup(o, from, to);
    this.aliases.set(group, def.group);
    this.servedKnown = new WeakMap();
    this.add({
      ...def,
      group,
      storedAs: {
        group: def.group,
        plural: def.plural,
        toStorage: rename(group, def.group),
        fromStorage: rename(def.group, group),
      },
    });
  }

  /** The group a request names, as authorization sees it: its own name unless it is an alias. */
  canonicalGroup(group: string): string {
    return this.aliases.size ? (this.aliases.get(group) ?? group) : group;
  }

  remove(group: string, plural: string): void {
    const e = this.byBucket.get(`${group}/${plural}`);
    if (!e) return;
    this.byBucket.delete(`${group}/${plural}`);
    this.byResourceName.delete(group, plural);
    for (const v of e.def.versions) {
      const byPlural = this.byPath.get(group, v);
      byPlural?.delete(plural);
      if (byPlural?.size === 0) this.byPath.delete(group, v);
    }
    const still = new Set<string>();
    for (const x of this.byBucket.values())
      if (x.def.group === group) for (const v of x.def.versions) still.add(v);
    if (still.size) this.groups.set(group, sortVersions([...still]));
    else this.groups.delete(group);
    for (const f of this.onChange) f();
  }

  /**
   * A namespace as stored now. A write asks for its namespace several times (the store before
   * and after admission, NamespaceLifecycle): its key is made once a name, not each time.
   */
  namespace(name: string): KObject | undefined {
    let key = this.namespaceKeys.get(name);
    if (key === undefined) {
      key = `core/namespaces//${name}`;
      if (this.namespaceKeys.size < NAMESPACE_KEYS_KEPT) this.namespaceKeys.set(name, key);
    }
    return this.storage.get(key)?.obj;
  }

  changed(f: () => void): void {
    this.onChange.push(f);
  }

  private setPath(group: string, version: string, plural: string, entry: Served): void {
    let byPlural = this.byPath.get(group, version);
    if (!byPlural) this.byPath.set(group, version, (byPlural = new Map()));
    byPlural.set(plural, entry);
  }

  lookup(group: string, version: string, plural: string): Served | undefined {
    const e = this.byPath.get(group, version)?.get(plural);
    return e && this.served(e.def, version) ? e : undefined;
  }

  /**
   * Applies `--runtime-config` to the built-in resources registered so far; throws
   * RuntimeConfigError when it names a group, version or resource the server does not have.
   */
  configure(rc: RuntimeConfig): void {
    checkRuntimeConfig(rc, this.builtinApis());
    this.enablement = new ApiEnablement(rc);
    this.servedKnown = new WeakMap();
    this.governed = new Set(
      [...this.byBucket.entries()].filter(([, { def }]) => !def.custom).map(([k]) => k),
    );
  }

  /** The built-in groups, versions and resources (custom resources and alias groups left out). */
  builtinApis(): RegisteredApis {
    const apis = new Map<string, Map<string, Set<string>>>();
    for (const { def } of this.byBucket.values()) {
      if (def.custom || this.aliases.has(def.group)) continue;
      const versions = apis.get(def.group) ?? apis.set(def.group, new Map()).get(def.group)!;
      for (const v of def.versions) (versions.get(v) ?? versions.set(v, new Set()).get(v)!).add(def.plural);
    }
    return apis;
  }

  /**
   * Whether a resource is served at a version: the runtime configuration decides for built-ins.
   * Asked on every request; known once a definition and version (anew after configure()).
   */
  private served(def: ResourceDef, version: string): boolean {
    let known = this.servedKnown.get(def);
    if (!known) this.servedKnown.set(def, (known = new Map()));
    let on = known.get(version);
    if (on === undefined) {
      const group = this.canonicalGroup(def.group);
      // aliases and twins follow the resource they stand for
      on = !this.governed.has(`${group}/${def.plural}`) || this.enablement.serves(group, version, def.plural);
      known.set(version, on);
    }
    return on;
  }

  byResource(group: string, plural: string): Served | undefined {
    return this.byResourceName.get(group, plural);
  }

  all(): Served[] {
    return [...this.byBucket.values()];
  }

  /** A group version is served when one of its resources is. */
  servesGroupVersion(group: string, version: string): boolean {
    if (!(this.groups.get(group) ?? []).includes(version)) return false;
    for (const { def } of this.byBucket.values())
      if (def.group === group && def.versions.includes(version) && this.served(def, version)) return true;
    return false;
  }

  // ------------------------------------------------------------- discovery

  apiVersions(serverAddress: string): unknown {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }

  private group(name: string): unknown {
    const versions = (this.groups.get(name) ?? []).filter((v) => this.servesGroupVersion(name, v));
    if (versions.length === 0) return undefined;
    return {
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    };
  }

  apiGroup(name: string): unknown {
    const g = this.group(name);
    return g ? { kind: 'APIGroup', apiVersion: 'v1', ...(g as object) } : undefined;
  }

  apiGroupList(): unknown {
    const groups = [...this.groups.keys()]
      .filter((g) => g !== '')
      .sort(
        (a, b) =>
          groupOrder(this.aliases.get(a) ?? a, this.aliases.get(b) ?? b) || twinFirst(this.aliases, a, b),
      )
      .map((g) => this.group(g))
      .filter(Boolean);
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }

  resourceList(group: string, version: string): unknown {
    if (!this.servesGroupVersion(group, version)) return undefined;
    const resources: unknown[] = [];
    for (const { def } of this.byBucket.values()) {
      if (def.group !== group || !def.versions.includes(version) || !this.served(def, version)) continue;
      const r: Record<string, unknown> = {
        name: def.plural,
        singularName: def.singular,
        namespaced: def.namespaced,
        kind: def.kind,
        verbs: def.verbs,
      };
      if (def.shortNames?.length) r.shortNames = def.shortNames;
      if (def.categories?.length) r.categories = def.categories;
      const target = def.storedAs ? this.byResource(def.storedAs.group, def.storedAs.plural)?.def : undefined;
      const hash = storageVersionHash(def, target && (storageVersionOf(target) ?? target.versions[0]));
      if (hash) r.storageVersionHash = hash;
      resources.push(r);
      for (const sub of def.subresources) {
        const info = SUBRESOURCES[sub];
        const s: Record<string, unknown> = {
          name: `${def.plural}/${sub}`,
          singularName: '',
          namespaced: def.namespaced,
          kind: def.kind,
          verbs: [...(info?.verbs ?? [])],
        };
        // a kind of the core group is named without group and version, as Kubernetes lists it
        if (info?.kind) Object.assign(s, info.kind.group === group ? { kind: info.kind.kind } : info.kind);
        if (info?.kindSuffix) s.kind = `${def.kind}${info.kindSuffix}`;
        resources.push(s);
      }
    }
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: apiVersionOf(group, version),
      resources,
    };
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function versionPriority(v: string): [number, number, number] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return [0, 0, 0];
  const level = m[2] === 'alpha' ? 1 : m[2] === 'beta' ? 2 : 3;
  return [level, Number(m[1]), Number(m[3] ?? 0)];
}

function sortVersions(vs: string[]): string[] {
  return vs.sort((a, b) => {
    const pa = versionPriority(a);
    const pb = versionPriority(b);
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i]! - pa[i]!;
    return a < b ? -1 : 1;
  });
}

/** A twin group (addTwin) right before the group it stands for. */
function twinFirst(aliases: Map<string, string>, a: string, b: string): number {
  return (aliases.has(a) ? 0 : 1) - (aliases.has(b) ? 0 : 1);
}

/** An object with its group's name in `apiVersion` (its own and its managed fields') replaced. */
function renameGroup(o: KObject, from: string, to: string): KObject {
  const swap = (v: unknown) =>
    typeof v === 'string' && v.startsWith(`${from}/`) ? `${to}${v.slice(from.length)}` : v;
  const out: KObject = { ...o, apiVersion: swap(o.apiVersion) as string };
  const mf = (o.metadata as { managedFields?: unknown } | undefined)?.managedFields;
  if (Array.isArray(mf))
    out.metadata = {
      ...(o.metadata as object),
      managedFields: mf.map((e) =>
        e && typeof e === 'object' ? { ...e, apiVersion: swap(e.apiVersion) } : e,
      ),
    };
  return out;
}

function groupOrder(a: string, b: string): number {
  // built-in groups first in a stable order, then the rest alphabetically
  const rank = (g: string) => (g.endsWith('.orch.io') || !g.includes('.') ? 0 : 1);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
