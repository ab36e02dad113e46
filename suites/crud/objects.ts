// Helpers of the crud suite: builders and paths for the kinds beyond ConfigMap that the cases use.
export const LEASES = 'coordination.orch.io/v1/leases';
export const DEPLOYMENTS = 'apps/v1/deployments';

export const leasePath = (ns: string, name?: string) =>
  `/apis/coordination.orch.io/v1/namespaces/${ns}/leases${name ? `/${name}` : ''}`;
export const deploymentPath = (ns: string, name?: string) =>
  `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;

export function lease(name: string, holder = 'conformance') {
  return {
    apiVersion: 'coordination.orch.io/v1',
    kind: 'Lease',
    metadata: { name },
    spec: { holderIdentity: holder },
  };
}

export function deployment(name: string, replicas = 1) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
      },
    },
  };
}
