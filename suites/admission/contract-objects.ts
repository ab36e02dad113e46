// The objects the webhook contract rows write, one per resource the rows may name: where each
// lives, how it is made, how an update changes it, and where its status subresource is.
import type { Resource } from './contract-rows.ts';

export interface ResourceDef {
  namespaced: boolean;
  /** The collection (namespaced ones in `ns`). */
  collection(ns: string): string;
  /** A new object. */
  make(name: string, ns: string, labels: Record<string, string>): Record<string, any>;
  /** The change an UPDATE makes (besides the labels). */
  change(o: Record<string, any>): void;
  /** Has a status subresource. */
  status?: boolean;
}

export const RESOURCES: Record<Resource, ResourceDef> = {
  configmaps: {
    namespaced: true,
    collection: (ns) => `/api/v1/namespaces/${ns}/configmaps`,
    make: (name, _ns, labels) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels },
      data: { key: 'old' },
    }),
    change: (o) => {
      o.data = { key: 'new' };
    },
  },
  namespaces: {
    namespaced: false,
    collection: () => '/api/v1/namespaces',
    make: (name, _ns, labels) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }),
    change: (o) => {
      o.metadata.annotations = { ...(o.metadata.annotations ?? {}), changed: 'yes' };
    },
    status: true,
  },
  clusterroles: {
    namespaced: false,
    collection: () => '/apis/rbac.authorization.orch.io/v1/clusterroles',
    make: (name, _ns, labels) => ({
      apiVersion: 'rbac.authorization.orch.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels },
      rules: [],
    }),
    change: (o) => {
      o.rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
    },
  },
  events: {
    namespaced: true,
    collection: (ns) => `/api/v1/namespaces/${ns}/events`,
    make: (name, ns, labels) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, labels },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'subject', namespace: ns },
      reason: 'Checked',
      message: 'conformance',
      type: 'Normal',
      source: { component: 'conformance' },
    }),
    change: (o) => {
      o.message = 'conformance, changed';
    },
  },
};
