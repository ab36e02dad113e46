// ValidatingWebhookConfiguration (admissionregistration.orch.io/v1, cluster-scoped): webhooks
// the server asks, in parallel, whether a matching request may proceed.
import { webhookConfigurationDef } from './webhook-common.ts';

export const validatingWebhookConfigurationDef = webhookConfigurationDef(
  'ValidatingWebhookConfiguration',
  false,
);
