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
import { type Follower, follow as followResource } from './informer.ts';
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

/** The collector's state: the graph of owner references, its informers and queues. */
interface GcState {
  env: ControllerEnv;
  client: ControllerClient;
  nodes: Map<string, Node>;
  dependents: Map<string, Set<string>>;
  informers: Map<string, Follower>;
  deleteQueue: WorkQueue;
  orphanQueue: WorkQueue;
}

export function startGarbageCollector(env: ControllerEnv): Controller {
  const gc = {
    env,
    client: new ControllerClient(env, 'generic-garbage-collector'),
    nodes: new Map<string, Node>(),
    dependents: new Map<string, Set<string>>(),
    informers: new Map<string, Follower>(),
  } as GcState;
  gc.deleteQueue = new WorkQueue('garbage collector', (uid) => attemptToDelete(gc, uid));
  gc.orphanQueue = new WorkQueue('garbage collector (orphaning)', (uid) => attemptToOrphan(gc, uid));
  let stopped = false;
  follow(gc);
  env.registry.changed(() => {
    if (!stopped) follow(gc);
  });
  return {
    stop() {
      stopped = true;
      gc.deleteQueue.stop();
      gc.orphanQueue.stop();
      for (const i of gc.informers.values()) i.stop();
      gc.informers.clear();
    },
  };
}

function link(gc: GcState, uid: string, owners: OwnerReference[], on: boolean) {
  for (const r of owners) {
    let set = gc.dependents.get(r.uid);
    if (on) {
      if (!set) gc.dependents.set(r.uid, (set = new Set()));
      set.add(uid);
    } else if (set) {
      set.delete(uid);
      if (!set.size) gc.dependents.delete(r.uid);
    }
  }
}

function dependentsOf(gc: GcState, uid: string): string[] {
  return [...(gc.dependents.get(uid) ?? [])];
}

/** The object a node stands for, if it is still that object. */
function current(gc: GcState, uid: string): { node: Node; obj: KObject } | undefined {
  const node = gc.nodes.get(uid);
  if (!node) return undefined;
  const obj = gc.client.get(node.group, node.plural, node.namespace, node.name);
  return obj && obj.metadata.uid === uid ? { node, obj } : undefined;
}

/** An owner reference resolved: the owner, 'absent', or 'unknown' (a kind the server does not serve). */
function resolve(gc: GcState, r: OwnerReference, dependent: Node): KObject | 'absent' | 'unknown' {
  const group = groupOf(r.apiVersion ?? '');
  const served = gc.env.registry.all().find(({ def }) => def.group === group && def.kind === r.kind);
  if (!served) return 'unknown';
  // a cluster-scoped dependent cannot have a namespaced owner
  if (served.def.namespaced && !dependent.namespace) return 'absent';
  const owner = served.store.getStored(served.def.namespaced ? dependent.namespace : '', r.name)?.obj;
  return owner && owner.metadata.uid === r.uid ? owner : 'absent';
}

/** Writes `change` into the latest state of the object (undefined: nothing to write). */
async function rewrite(gc: GcState, uid: string, change: (o: KObject) => KObject | undefined): Promise<void> {
  const cur = current(gc, uid);
  if (!cur) return;
  const next = change(structuredClone(cur.obj));
  if (!next) return;
  try {
    await gc.client.update(cur.node.group, cur.node.plural, next, versionOf(cur.obj));
  } catch (e) {
    if (isNotFound(e)) return;
    throw e;
  }
}

function withoutFinalizer(f: string) {
  return (o: KObject) => {
    if (!has(o, f)) return undefined;
    o.metadata.finalizers = o.metadata.finalizers!.filter((x) => x !== f);
    return o;
  };
}

async function remove(gc: GcState, uid: string, node: Node, propagationPolicy: string): Promise<void> {
  try {
    await gc.client.delete(node.group, node.plural, node.namespace, node.name, uid, propagationPolicy);
  } catch (e) {
    // gone, or another object of that name now: nothing to collect
    if (isNotFound(e) || isConflict(e)) return;
    throw e;
  }
}

async function attemptToDelete(gc: GcState, uid: string): Promise<void> {
  const cur = current(gc, uid);
  if (!cur) return;
  const { node, obj } = cur;
  if (obj.metadata.deletionTimestamp) {
    if (has(obj, FOREGROUND_FINALIZER)) await deletingDependents(gc, uid);
    return;
  }
  const owners = ownerReferencesOf(obj);
  if (!owners.length) return;
  const solid: OwnerReference[] = [];
  const dropped = new Set<string>();
  let waiting = 0;
  for (const r of owners) {
    const owner = resolve(gc, r, node);
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
    await rewrite(gc, uid, (o) =>
      setOwners(
        o,
        ownerReferencesOf(o).filter((r) => !dropped.has(r.uid)),
      ),
    );
    return;
  }
  if (waiting && dependentsOf(gc, uid).length) {
    await remove(gc, uid, node, 'Foreground');
    return;
  }
  const policy = has(obj, ORPHAN_FINALIZER)
    ? 'Orphan'
    : has(obj, FOREGROUND_FINALIZER)
      ? 'Foreground'
      : 'Background';
  await remove(gc, uid, node, policy);
}

/** An owner deleted in the foreground: its dependents go first. */
async function deletingDependents(gc: GcState, uid: string): Promise<void> {
  const blocking = dependentsOf(gc, uid).filter((d) =>
    gc.nodes.get(d)?.owners.some((r) => r.uid === uid && r.blockOwnerDeletion === true),
  );
  if (!blocking.length) {
    await rewrite(gc, uid, withoutFinalizer(FOREGROUND_FINALIZER));
    return;
  }
  for (const d of blocking) {
    const dep = current(gc, d);
    if (dep && !(dep.obj.metadata.deletionTimestamp && has(dep.obj, FOREGROUND_FINALIZER)))
      gc.deleteQueue.add(d);
  }
}

/** An owner deleted with `orphan`: its dependents lose their reference to it, then it loses the finalizer. */
async function attemptToOrphan(gc: GcState, uid: string): Promise<void> {
  const cur = current(gc, uid);
  if (!cur?.obj.metadata.deletionTimestamp || !has(cur.obj, ORPHAN_FINALIZER)) return;
  for (const d of dependentsOf(gc, uid))
    await rewrite(gc, d, (o) => {
      const refs = ownerReferencesOf(o);
      if (!refs.some((r) => r.uid === uid)) return undefined;
      return setOwners(
        o,
        refs.filter((r) => r.uid !== uid),
      );
    });
  await rewrite(gc, uid, withoutFinalizer(ORPHAN_FINALIZER));
}

function observe(gc: GcState, served: Served, type: string, obj: KObject, prev?: KObject) {
  const uid = obj.metadata.uid;
  if (!uid) return;
  const old = gc.nodes.get(uid);
  if (type === 'DELETED') {
    if (old) {
      gc.nodes.delete(uid);
      link(gc, uid, old.owners, false);
      // its owners may wait for it
      for (const r of old.owners) gc.deleteQueue.add(r.uid);
    }
    // its dependents may now be garbage
    for (const d of dependentsOf(gc, uid)) gc.deleteQueue.add(d);
    return;
  }
  const owners = ownerReferencesOf(obj);
  if (old) link(gc, uid, old.owners, false);
  // Only a dependent or an object being deleted is ever collected, orphaned or waited for: the
  // rest need no node (a node for every object cost each write a lookup and a store in a map
  // of the whole cluster). An owner is found by its reference, its dependents by its uid.
  if (!owners.length && !obj.metadata.deletionTimestamp) {
    if (old) gc.nodes.delete(uid);
    return;
  }
  gc.nodes.set(uid, {
    group: served.def.group,
    plural: served.def.plural,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name!,
    owners,
  });
  link(gc, uid, owners, true);
  if (
    owners.length &&
    (!old || JSON.stringify(owners) !== JSON.stringify(prev ? ownerReferencesOf(prev) : []))
  )
    gc.deleteQueue.add(uid);
  if (obj.metadata.deletionTimestamp) {
    if (has(obj, ORPHAN_FINALIZER)) gc.orphanQueue.add(uid);
    if (has(obj, FOREGROUND_FINALIZER)) {
      gc.deleteQueue.add(uid);
      for (const d of dependentsOf(gc, uid)) gc.deleteQueue.add(d);
    }
  }
}

/** Every stored resource is followed, and those added later (custom resources). */
function follow(gc: GcState): void {
  const buckets = new Set<string>();
  for (const served of collectable(gc.env.registry)) {
    const key = `${served.def.group}/${served.def.plural}`;
    buckets.add(key);
    if (gc.informers.has(key)) continue;
    const i = followResource(gc.env.registry, served.def.group, served.def.plural, (ev) =>
      observe(gc, served, ev.type, ev.obj, ev.prev),
    );
    if (i) gc.informers.set(key, i);
  }
  for (const [key, i] of gc.informers)
    if (!buckets.has(key)) {
      i.stop();
      gc.informers.delete(key);
    }
}
