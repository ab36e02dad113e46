// The garbage collector (Kubernetes' `garbagecollector`): objects whose owners are all gone are
// deleted, following metadata.ownerReferences. It keeps a graph of every stored object's owner
// references (fed by a watch of every resource, custom ones included) and, as Kubernetes 1.28
// does:
//  - an object whose owners are all absent (no object of that kind and name with that uid) is
//    deleted, with the propagation its own finalizers ask for (else in the background), or in
//    the foreground when an owner waits for its dependents and it has dependents itself;
//  - an object with an owner that still stands loses its references to absent owners and to
//    owners deleted in the foreground, and is kept;
//  - an owner deleted with `foregroundDeletion` has its dependents deleted, and loses the
//    finalizer once no dependent whose reference says blockOwnerDeletion is left;
//  - an owner deleted with `orphan` has its references removed from its dependents, then loses
//    the finalizer.
// A reference to a kind the server does not serve is left alone.
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../registry/gc-finalizers.ts';
import type { Registry, Served } from '../registry/registry.ts';
import type { KObject } from '../storage/types.ts';
import { ControllerClient, type ControllerEnv, isConflict, isNotFound } from './client.ts';
import { type Informer, inform } from './informer.ts';
import type { Controller } from './types.ts';
import { WorkQueue } from './work-queue.ts';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

interface Node {
  group: string;
  plural: string;
  namespace: string;
  name: string;
  owners: OwnerReference[];
}

export const ownerReferencesOf = (o: KObject): OwnerReference[] =>
  ((o.metadata.ownerReferences ?? []) as OwnerReference[]).filter((r) => r && typeof r.uid === 'string');

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const versionOf = (o: KObject): string => (o.apiVersion ?? 'v1').split('/').pop()!;
/** The object with these owner references (none: the field goes, as an empty list is not kept). */
function setOwners(o: KObject, owners: OwnerReference[]): KObject {
  if (owners.length) o.metadata.ownerReferences = owners;
  else delete o.metadata.ownerReferences;
  return o;
}
const has = (o: KObject, finalizer: string) => !!o.metadata.finalizers?.includes(finalizer);

/** The resources the collector follows: every stored one (not the review APIs, not computed ones). */
function collectable(registry: Registry): Served[] {
  return registry.all().filter(({ def }) => !def.storedAs && !def.strategy.review && !def.strategy.live);
}

export function startGarbageCollector(env: ControllerEnv): Controller {
  const client = new ControllerClient(env, 'generic-garbage-collector');
  const nodes = new Map<string, Node>();
  const dependents = new Map<string, Set<string>>();
  const informers = new Map<string, Informer>();

  const link = (uid: string, owners: OwnerReference[], on: boolean) => {
    for (const r of owners) {
      let set = dependents.get(r.uid);
      if (on) {
        if (!set) dependents.set(r.uid, (set = new Set()));
        set.add(uid);
      } else if (set) {
        set.delete(uid);
        if (!set.size) dependents.delete(r.uid);
      }
    }
  };
  const dependentsOf = (uid: string): string[] => [...(dependents.get(uid) ?? [])];

  /** The object a node stands for, if it is still that object. */
  const current = (uid: string): { node: Node; obj: KObject } | undefined => {
    const node = nodes.get(uid);
    if (!node) return undefined;
    const obj = client.get(node.group, node.plural, node.namespace, node.name);
    return obj && obj.metadata.uid === uid ? { node, obj } : undefined;
  };

  /** An owner reference resolved: the owner, 'absent', or 'unknown' (a kind the server does not serve). */
  const resolve = (r: OwnerReference, dependent: Node): KObject | 'absent' | 'unknown' => {
    const group = groupOf(r.apiVersion ?? '');
    const served = env.registry.all().find(({ def }) => def.group === group && def.kind === r.kind);
    if (!served) return 'unknown';
    // a cluster-scoped dependent cannot have a namespaced owner
    if (served.def.namespaced && !dependent.namespace) return 'absent';
    const owner = served.store.getStored(served.def.namespaced ? dependent.namespace : '', r.name)?.obj;
    return owner && owner.metadata.uid === r.uid ? owner : 'absent';
  };

  /** Writes `change` into the latest state of the object (undefined: nothing to write). */
  const rewrite = async (uid: string, change: (o: KObject) => KObject | undefined): Promise<void> => {
    const cur = current(uid);
    if (!cur) return;
    const next = change(structuredClone(cur.obj));
    if (!next) return;
    try {
      await client.update(cur.node.group, cur.node.plural, next, versionOf(cur.obj));
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  };
  const withoutFinalizer = (f: string) => (o: KObject) => {
    if (!has(o, f)) return undefined;
    o.metadata.finalizers = o.metadata.finalizers!.filter((x) => x !== f);
    return o;
  };
  const remove = async (uid: string, node: Node, propagationPolicy: string): Promise<void> => {
    try {
      await client.delete(node.group, node.plural, node.namespace, node.name, uid, propagationPolicy);
    } catch (e) {
      // gone, or another object of that name now: nothing to collect
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  };

  const attemptToDelete = async (uid: string): Promise<void> => {
    const cur = current(uid);
    if (!cur) return;
    const { node, obj } = cur;
    if (obj.metadata.deletionTimestamp) {
      if (has(obj, FOREGROUND_FINALIZER)) await deletingDependents(uid);
      return;
    }
    const owners = ownerReferencesOf(obj);
    if (!owners.length) return;
    const solid: OwnerReference[] = [];
    const dropped = new Set<string>();
    let waiting = 0;
    for (const r of owners) {
      const owner = resolve(r, node);
      if (owner === 'unknown') solid.push(r);
      else if (owner === 'absent') dropped.add(r.uid);
      else if (owner.metadata.deletionTimestamp && has(owner, FOREGROUND_FINALIZER)) {
        waiting++;
        dropped.add(r.uid);
      } else solid.push(r);
    }
    if (solid.length) {
      if (!dropped.size) return;
      // kept by an owner that stands: only the references to absent or foreground-deleted owners go
      await rewrite(uid, (o) =>
        setOwners(
          o,
          ownerReferencesOf(o).filter((r) => !dropped.has(r.uid)),
        ),
      );
      return;
    }
    if (waiting && dependentsOf(uid).length) {
      await remove(uid, node, 'Foreground');
      return;
    }
    const policy = has(obj, ORPHAN_FINALIZER)
      ? 'Orphan'
      : has(obj, FOREGROUND_FINALIZER)
        ? 'Foreground'
        : 'Background';
    await remove(uid, node, policy);
  };

  /** An owner deleted in the foreground: its dependents go first. */
  const deletingDependents = async (uid: string): Promise<void> => {
    const blocking = dependentsOf(uid).filter((d) =>
      nodes.get(d)?.owners.some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    );
    if (!blocking.length) {
      await rewrite(uid, withoutFinalizer(FOREGROUND_FINALIZER));
      return;
    }
    for (const d of blocking) {
      const dep = current(d);
      if (dep && !(dep.obj.metadata.deletionTimestamp && has(dep.obj, FOREGROUND_FINALIZER)))
        deleteQueue.add(d);
    }
  };

  /** An owner deleted with `orphan`: its dependents lose their reference to it, then it loses the finalizer. */
  const attemptToOrphan = async (uid: string): Promise<void> => {
    const cur = current(uid);
    if (!cur?.obj.metadata.deletionTimestamp || !has(cur.obj, ORPHAN_FINALIZER)) return;
    for (const d of dependentsOf(uid))
      await rewrite(d, (o) => {
        const refs = ownerReferencesOf(o);
        if (!refs.some((r) => r.uid === uid)) return undefined;
        return setOwners(
          o,
          refs.filter((r) => r.uid !== uid),
        );
      });
    await rewrite(uid, withoutFinalizer(ORPHAN_FINALIZER));
  };

  const deleteQueue = new WorkQueue('garbage collector', attemptToDelete);
  const orphanQueue = new WorkQueue('garbage collector (orphaning)', attemptToOrphan);

  const observe = (served: Served, type: string, obj: KObject, prev?: KObject) => {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const old = nodes.get(uid);
    if (type === 'DELETED') {
      if (!old) return;
      nodes.delete(uid);
      link(uid, old.owners, false);
      // its owners may wait for it; its dependents may now be garbage
      for (const r of old.owners) deleteQueue.add(r.uid);
      for (const d of dependentsOf(uid)) deleteQueue.add(d);
      return;
    }
    const owners = ownerReferencesOf(obj);
    if (old) link(uid, old.owners, false);
    nodes.set(uid, {
      group: served.def.group,
      plural: served.def.plural,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name!,
      owners,
    });
    link(uid, owners, true);
    const ownersChanged = JSON.stringify(owners) !== JSON.stringify(prev ? ownerReferencesOf(prev) : []);
    if (owners.length && (!old || ownersChanged)) deleteQueue.add(uid);
    if (obj.metadata.deletionTimestamp) {
      if (has(obj, ORPHAN_FINALIZER)) orphanQueue.add(uid);
      if (has(obj, FOREGROUND_FINALIZER)) {
        deleteQueue.add(uid);
        for (const d of dependentsOf(uid)) deleteQueue.add(d);
      }
    }
  };

  // every stored resource, and those added later (custom resources)
  const follow = () => {
    const buckets = new Set<string>();
    for (const served of collectable(env.registry)) {
      const key = `${served.def.group}/${served.def.plural}`;
      buckets.add(key);
      if (informers.has(key)) continue;
      const i = inform(env.registry, served.def.group, served.def.plural, (ev) =>
        observe(served, ev.type, ev.obj, ev.prev),
      );
      if (i) informers.set(key, i);
    }
    for (const [key, i] of informers)
      if (!buckets.has(key)) {
        i.stop();
        informers.delete(key);
      }
  };
  let stopped = false;
  follow();
  env.registry.changed(() => {
    if (!stopped) follow();
  });
  return {
    stop() {
      stopped = true;
      deleteQueue.stop();
      orphanQueue.stop();
      for (const i of informers.values()) i.stop();
      informers.clear();
    },
  };
}
