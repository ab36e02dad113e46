// What the request generator knows about the server under test.
import type { ServedResource } from './resources.ts';

export interface FuzzContext {
  /** The bearer token that the server accepts (admin). */
  token: string;
  /** The namespace the fuzzer works in (created at start, never deleted). */
  workNamespace: string;
  /** The canary's namespace: never named by a generated request. */
  canaryNamespace: string;
  resources: ServedResource[];
}

/**
 * Groups whose objects configure the server itself (admission webhooks and policies, API
 * aggregation, custom resource definitions, request priorities): a random object that happened to be valid there
 * would make later answers depend on it (a webhook pointing nowhere fails every write, as
 * Kubernetes prescribes). The generator reads them but never writes them.
 */
export const CONFIGURING_GROUPS = [
  'admissionregistration.orch.io',
  'apiregistration.orch.io',
  'apiextensions.orch.io',
  'flowcontrol.apiserver.orch.io',
];
