// The admission stage's contract (doc3 "admission"): writes pass a mutating phase, then a
// validating phase; any plugin may reject, which rejects the whole request. Reads are never
// admitted. Plugins come from sources that may change at run time (webhook configurations
// and policies are API objects).
import type { RequestContext } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionAttributes {
  operation: Operation;
  /** The kind and resource as the request named them. */
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  /** The kind and resource the object is stored as. */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  namespace: string;
  name: string;
  /** The new object (CREATE, UPDATE); a mutating plugin may replace it. */
  object?: KObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: KObject;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions of the request. */
  options?: Record<string, unknown>;
  dryRun: boolean;
  ctx: RequestContext;
  /** The mutating phase's second round (absent in the validating phase). */
  reinvocation?: ReinvocationContext;
}

/**
 * Kubernetes 1.28's reinvocation: a mutating webhook that changes the object asks for one more
 * round of the whole mutating chain, in which the built-in plugins run again and the webhooks
 * run only where their reinvocation policy asks for it. Plugins keep their own state here.
 */
export class ReinvocationContext {
  /** This is the second round. */
  isReinvoke = false;
  /** Something asked for a second round. */
  shouldReinvoke = false;
  private readonly values = new Map<string, unknown>();

  value<T>(key: string, make: () => T): T {
    if (!this.values.has(key)) this.values.set(key, make());
    return this.values.get(key) as T;
  }
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Whether the plugin cares about a request (skipped otherwise). */
  handles?(a: AdmissionAttributes): boolean;
  /** May change (or replace) `a.object`; throws a StatusError to reject. */
  mutate?(a: AdmissionAttributes): void | Promise<void>;
  /** Throws a StatusError to reject. */
  validate?(a: AdmissionAttributes): void | Promise<void>;
  /** Releases what the plugin holds open (connections to webhooks) when the server stops. */
  close?(): void;
}

/** Where plugins come from: a fixed list, or one read from API objects each time. */
export type PluginSource = () => readonly AdmissionPlugin[];
