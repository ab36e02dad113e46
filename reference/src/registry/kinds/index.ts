// Every built-in kind, installed into a registry.
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import { certificateSigningRequestDef } from './certificatesigningrequest.ts';
import { clusterRoleDef } from './clusterrole.ts';
import { clusterRoleBindingDef } from './clusterrolebinding.ts';
import { configMap } from './configmap.ts';
import { crdDef } from './crd/index.ts';
import { deploymentDef } from './deployment.ts';
import { eventDef, eventsV1Def } from './event.ts';
import { leaseDef } from './lease.ts';
import { mutatingWebhookConfigurationDef } from './mutatingwebhookconfiguration.ts';
import { namespaceDef } from './namespace.ts';
import { nodeDef } from './node.ts';
import { podDef } from './pod.ts';
import { roleDef } from './role.ts';
import { roleBindingDef } from './rolebinding.ts';
import { secretDef } from './secret.ts';
import { serviceDef } from './service.ts';
import { serviceAccountDef } from './serviceaccount.ts';
import { validatingAdmissionPolicyDef } from './validatingadmissionpolicy.ts';
import { validatingAdmissionPolicyBindingDef } from './validatingadmissionpolicybinding.ts';
import { validatingWebhookConfigurationDef } from './validatingwebhookconfiguration.ts';

export function builtinKinds(registry: () => Registry): ResourceDef[] {
  return [
    namespaceDef(registry),
    configMap,
    secretDef,
    podDef,
    serviceDef(registry),
    nodeDef,
    serviceAccountDef,
    eventDef,
    eventsV1Def,
    leaseDef,
    deploymentDef,
    crdDef(),
    certificateSigningRequestDef,
    roleDef,
    clusterRoleDef,
    roleBindingDef,
    clusterRoleBindingDef,
    validatingWebhookConfigurationDef,
    mutatingWebhookConfigurationDef,
    validatingAdmissionPolicyDef,
    validatingAdmissionPolicyBindingDef,
  ];
}

export function installBuiltins(registry: Registry): void {
  for (const def of builtinKinds(() => registry)) registry.add(def);
  // `kubectl certificate approve` finds the request through discovery, then accepts only
  // Kubernetes' group name for it
  registry.addTwin(certificateSigningRequestDef, 'certificates.k8s.io');
}
