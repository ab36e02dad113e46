// Every built-in kind, installed into a registry.
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import { apiServiceDef } from './apiservice.ts';
import { bindingDef } from './binding.ts';
import { certificateSigningRequestDef } from './certificatesigningrequest.ts';
import { clusterRoleDef } from './clusterrole.ts';
import { clusterRoleBindingDef } from './clusterrolebinding.ts';
import { componentStatusDef } from './componentstatus.ts';
import { configMap } from './configmap.ts';
import { controllerRevisionDef } from './controllerrevision.ts';
import { crdDef } from './crd/index.ts';
import { cronJobDef } from './cronjob.ts';
import { csiDriverDef } from './csidriver.ts';
import { csiNodeDef } from './csinode.ts';
import { csiStorageCapacityDef } from './csistoragecapacity.ts';
import { daemonSetDef } from './daemonset.ts';
import { deploymentDef } from './deployment.ts';
import { endpointsDef } from './endpoints.ts';
import { endpointSliceDef } from './endpointslice.ts';
import { eventDef, eventsV1Def } from './event.ts';
import { flowSchemaDef } from './flowschema.ts';
import { horizontalPodAutoscalerDef } from './horizontalpodautoscaler.ts';
import { ingressDef } from './ingress.ts';
import { ingressClassDef } from './ingressclass.ts';
import { jobDef } from './job.ts';
import { leaseDef } from './lease.ts';
import { limitRangeDef } from './limitrange.ts';
import { mutatingWebhookConfigurationDef } from './mutatingwebhookconfiguration.ts';
import { namespaceDef } from './namespace.ts';
import { networkPolicyDef } from './networkpolicy.ts';
import { nodeDef } from './node.ts';
import { persistentVolumeDef } from './persistentvolume.ts';
import { persistentVolumeClaimDef } from './persistentvolumeclaim.ts';
import { podDef } from './pod.ts';
import { podDisruptionBudgetDef } from './poddisruptionbudget.ts';
import { podTemplateDef } from './podtemplate.ts';
import { priorityClassDef } from './priorityclass.ts';
import { priorityLevelConfigurationDef } from './prioritylevelconfiguration.ts';
import { replicaSetDef } from './replicaset.ts';
import { replicationControllerDef } from './replicationcontroller.ts';
import { resourceQuotaDef } from './resourcequota.ts';
import { roleDef } from './role.ts';
import { roleBindingDef } from './rolebinding.ts';
import { runtimeClassDef } from './runtimeclass.ts';
import { secretDef } from './secret.ts';
import { serviceDef } from './service.ts';
import { serviceAccountDef } from './serviceaccount.ts';
import { statefulSetDef } from './statefulset.ts';
import { storageClassDef } from './storageclass.ts';
import { validatingAdmissionPolicyDef } from './validatingadmissionpolicy.ts';
import { validatingAdmissionPolicyBindingDef } from './validatingadmissionpolicybinding.ts';
import { validatingWebhookConfigurationDef } from './validatingwebhookconfiguration.ts';
import { volumeAttachmentDef } from './volumeattachment.ts';

export function builtinKinds(registry: () => Registry): ResourceDef[] {
  return [
    namespaceDef(),
    configMap,
    secretDef,
    podDef,
    bindingDef,
    serviceDef(registry),
    nodeDef,
    serviceAccountDef,
    eventDef,
    eventsV1Def,
    leaseDef,
    deploymentDef,
    replicaSetDef,
    daemonSetDef,
    statefulSetDef,
    controllerRevisionDef,
    replicationControllerDef,
    podTemplateDef,
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
    limitRangeDef,
    resourceQuotaDef,
    persistentVolumeDef(registry),
    persistentVolumeClaimDef(registry),
    priorityClassDef,
    runtimeClassDef,
    ingressClassDef,
    ingressDef,
    storageClassDef,
    csiDriverDef,
    csiNodeDef,
    csiStorageCapacityDef,
    volumeAttachmentDef,
    endpointsDef,
    endpointSliceDef,
    jobDef,
    cronJobDef,
    horizontalPodAutoscalerDef,
    podDisruptionBudgetDef,
    networkPolicyDef,
    flowSchemaDef,
    priorityLevelConfigurationDef,
    apiServiceDef,
    componentStatusDef(registry),
  ];
}

export function installBuiltins(registry: Registry): void {
  for (const def of builtinKinds(() => registry)) registry.add(def);
  // `kubectl certificate approve` finds the request through discovery, then accepts only
  // Kubernetes' group name for it
  registry.addTwin(certificateSigningRequestDef, 'certificates.k8s.io');
}
