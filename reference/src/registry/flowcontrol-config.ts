// The priority-and-fairness configuration, kept as a Kubernetes 1.28 server keeps it: at start
// and each minute after, the suggested, then the mandatory configuration objects are made when missing (a mandatory
// one's spec is put back when it differs; a suggested one's only while it carries
// `apf.orch.io/autoupdate-spec: "true"`); then each FlowSchema's `Dangling` condition says
// whether the priority level it names exists, as the configuration controller writes it.
import { againOnConflict } from '../errors/status.ts';
import { NameQueue } from '../util/name-queue.ts';
import { rfc3339 } from '../util/time.ts';
import {
  bootstrapObject,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from './kinds/flowcontrol-bootstrap.ts';
import { AUTO_UPDATE_ANNOTATION, FLOWCONTROL_GROUP, sameSpec } from './kinds/flowcontrol-common.ts';
import type { Registry } from './registry.ts';
import { withCondition } from './status-condition.ts';
import type { GenericStore } from './store.ts';
import type { RequestContext } from './types.ts';

const SYSTEM: RequestContext = {
  user: { username: 'system:apiserver', groups: ['system:masters'] },
  warnings: [],
  dryRun: false,
  fieldManager: 'api-priority-and-fairness-config-producer-v1',
};

const STATUS_WRITER: RequestContext = {
  ...SYSTEM,
  fieldManager: 'api-priority-and-fairness-config-consumer-v1',
};

type Kind = 'FlowSchema' | 'PriorityLevelConfiguration';

async function ensure(
  store: GenericStore,
  kind: Kind,
  c: { name: string; spec: object },
  mandatory: boolean,
): Promise<void> {
  // another server on the same store may write the same object at the same moment: look again
  return againOnConflict(() => ensureOnce(store, kind, c, mandatory));
}

async function ensureOnce(
  store: GenericStore,
  kind: Kind,
  c: { name: string; spec: object },
  mandatory: boolean,
): Promise<void> {
  const cur = store.getStored('', c.name)?.obj;
  const want = bootstrapObject(kind, c);
  if (!cur) {
    await store.create('', want, SYSTEM, 'v1beta3');
    return;
  }
  // the exempt level's `spec.exempt` belongs to its users
  const spec =
    mandatory && c.name === 'exempt' && kind === 'PriorityLevelConfiguration'
      ? {
          ...(want.spec as object),
          exempt:
            (cur.spec as { exempt?: unknown } | undefined)?.exempt ??
            (want.spec as { exempt?: unknown }).exempt,
        }
      : want.spec;
  if (sameSpec(cur.spec, spec)) return;
  if (!mandatory && cur.metadata.annotations?.[AUTO_UPDATE_ANNOTATION] !== 'true') return;
  await store.update('', c.name, { ...cur, spec, metadata: { ...cur.metadata } }, SYSTEM, 'v1beta3');
}

/** Makes the configuration objects that are missing (the `priority-and-fairness-config-producer` start hook). */
export async function ensureFlowControlConfiguration(registry: Registry): Promise<void> {
  const schemas = registry.byResource(FLOWCONTROL_GROUP, 'flowschemas')?.store;
  const levels = registry.byResource(FLOWCONTROL_GROUP, 'prioritylevelconfigurations')?.store;
  if (!schemas || !levels) return;
  // each list at once (a durable store commits them together rather than one sync each), the
  // lists in their order: a schema finds the level it names already made
  const all = (store: GenericStore, kind: Kind, list: { name: string; spec: object }[], mandatory: boolean) =>
    Promise.all(list.map((c) => ensure(store, kind, c, mandatory)));
  await all(levels, 'PriorityLevelConfiguration', SUGGESTED_PRIORITY_LEVELS, false);
  await all(schemas, 'FlowSchema', SUGGESTED_FLOW_SCHEMAS, false);
  await all(levels, 'PriorityLevelConfiguration', MANDATORY_PRIORITY_LEVELS, true);
  await all(schemas, 'FlowSchema', MANDATORY_FLOW_SCHEMAS, true);
}

/**
 * Runs the ensuring again every `everyMs` (1.28: each minute), so a deleted configuration object
 * comes back and a mandatory spec is put back. Returns the stop function.
 */
export function keepFlowControlConfiguration(registry: Registry, everyMs = 60_000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    ensureFlowControlConfiguration(registry)
      .catch((e) => console.error('priority-and-fairness configuration:', e))
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** The `Dangling` condition of a FlowSchema naming `level`, which exists or not. */
export function danglingCondition(level: string, exists: boolean, now: string): Condition {
  return exists
    ? {
        type: 'Dangling',
        status: 'False',
        lastTransitionTime: now,
        reason: 'Found',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists`,
      }
    : {
        type: 'Dangling',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NotFound',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object`,
      };
}

export interface FlowControlStatus {
  stop(): void;
}

/** Keeps each FlowSchema's `Dangling` condition (written through the status subresource). */
export function startFlowSchemaStatus(registry: Registry, now: () => number = Date.now): FlowControlStatus {
  const schemas = registry.byResource(FLOWCONTROL_GROUP, 'flowschemas')?.store;
  const levels = registry.byResource(FLOWCONTROL_GROUP, 'prioritylevelconfigurations')?.store;
  if (!schemas || !levels) return { stop() {} };
  let stopped = false;
  const queue = new NameQueue(async (name) => {
    try {
      const cur = schemas.getStored('', name)?.obj;
      if (!cur || stopped) return;
      const level =
        (cur.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)
          ?.priorityLevelConfiguration?.name ?? '';
      const exists = !!levels.getStored('', level);
      const next = withCondition(cur, danglingCondition(level, exists, rfc3339(now())));
      if (!next) return;
      await schemas.update('', name, next, STATUS_WRITER, 'v1beta3', 'status');
    } catch (e) {
      // a conflict: the newer version is queued by the watch; anything else is logged
      if ((e as { code?: number }).code !== 409 && (e as { code?: number }).code !== 404)
        console.error(`flowschema ${name}: status:`, e);
    }
  });
  const storage = registry.storage;
  const rv = storage.revision();
  const all = () => {
    for (const s of storage.list(schemas.bucket, `${schemas.bucket}/`)) queue.add(s.obj.metadata.name!);
  };
  all();
  const cancels = [
    storage.watch(schemas.bucket, rv, (ev) => {
      if (!stopped && ev.obj.metadata.name) queue.add(ev.obj.metadata.name);
    }),
    // a level made or removed changes the schemas naming it
    storage.watch(levels.bucket, rv, (ev) => {
      if (stopped || ev.type === 'MODIFIED') return;
      for (const s of storage.list(schemas.bucket, `${schemas.bucket}/`)) {
        const level = (s.obj.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)
          ?.priorityLevelConfiguration?.name;
        if (level === ev.obj.metadata.name) queue.add(s.obj.metadata.name!);
      }
    }),
  ];
  return {
    stop() {
      stopped = true;
      queue.stop();
      for (const c of cancels) c();
    },
  };
}
