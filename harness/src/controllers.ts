// Behaviour that Kubernetes leaves to controllers outside the API server (kube-controller-
// manager): the namespace controller empties and removes a deleted namespace; the
// service-account controller creates each namespace's `default` ServiceAccount, without which
// Pods are refused. Against an API server running alone these cases fail; the failure then
// says which controller is missing and how to get one.

const HOW = 'run against a full cluster (kind, or kube-apiserver with kube-controller-manager running)';

/** The answer refuses a pod because its namespace has no `default` ServiceAccount (yet). */
export function missingDefaultServiceAccount(message: string | undefined): boolean {
  return (
    !!message && /service ?account "?default"? not found|error looking up service account/i.test(message)
  );
}

/** A hint for an answer that shows a missing controller, or '' when it shows none. */
export function missingControllerHint(message: string | undefined): string {
  if (!message) return '';
  if (missingDefaultServiceAccount(message))
    return ` [the target seems to run no service-account controller: it creates each namespace's "default" ServiceAccount, which Pods need; ${HOW}]`;
  return '';
}

/** What to say when a deleted namespace is not removed in time. */
export function namespaceControllerHint(ns: string, seconds: number): string {
  return `namespace ${ns} still present after ${seconds} s: its contents are deleted and it is removed by the namespace controller; if the target runs none, ${HOW}`;
}
