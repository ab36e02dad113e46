// MutatingWebhookConfiguration (admissionregistration.orch.io/v1, cluster-scoped): webhooks
// the server calls in sequence, each of which may change a matching request's object; they alone
// carry a reinvocationPolicy.
import { webhookConfigurationDef } from './webhook-common.ts';

export const mutatingWebhookConfigurationDef = webhookConfigurationDef('MutatingWebhookConfiguration', true);
