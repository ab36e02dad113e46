// What starts once the authorizer has: the custom resources of stored definitions (served again,
// then watched), an APIService per served group version with its Available condition, and the
// admission policies' type checking (written to their status, with the policy gate on).
import { PolicyStatusController } from '../admission/policy/status-controller.ts';
import type { ServerOptions } from '../config.ts';
import { startAPIServices } from '../registry/apiservices.ts';
import { startCrdController } from '../registry/kinds/crd/index.ts';
import type { Registry } from '../registry/registry.ts';

export interface PostStart {
  crdController: ReturnType<typeof startCrdController>;
  apiServices: Awaited<ReturnType<typeof startAPIServices>>;
  policyStatus: PolicyStatusController;
}

export async function startPostStart(options: ServerOptions, registry: Registry): Promise<PostStart> {
  // custom resources of stored definitions are served again; the controller then watches them
  const crdController = startCrdController(registry);
  // an APIService per served group version, and their Available condition
  const apiServices = await startAPIServices(registry);
  // the policies' type checking, written to their status (with the policy gate on)
  const policyStatus = new PolicyStatusController(registry);
  if (options.featureGates.ValidatingAdmissionPolicy) policyStatus.start();
  return { crdController, apiServices, policyStatus };
}
