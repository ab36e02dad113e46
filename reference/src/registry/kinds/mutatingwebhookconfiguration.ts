// MutatingWebhookConfiguration (admissionregistration.orch.io/v1, cluster-scoped): webhooks
// the server calls in sequence, each of which may change a matching request's object; they alone
// carry a reinvocationPolicy.
import type { ResourceDef } from '../types.ts';
import { webhookConfigurationDef } from './webhook-common.ts';

export const mutatingWebhookConfigurationDef: ResourceDef = webhookConfigurationDef(
  'MutatingWebhookConfiguration',
  'mutatingwebhookconfigurations',
  true,
);
