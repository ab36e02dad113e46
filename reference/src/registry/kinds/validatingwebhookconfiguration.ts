// ValidatingWebhookConfiguration (admissionregistration.orch.io/v1, cluster-scoped): webhooks
// the server asks, in parallel, whether a matching request may proceed.
import type { ResourceDef } from '../types.ts';
import { webhookConfigurationDef } from './webhook-common.ts';

export const validatingWebhookConfigurationDef: ResourceDef = webhookConfigurationDef(
  'ValidatingWebhookConfiguration',
  'validatingwebhookconfigurations',
  false,
);
