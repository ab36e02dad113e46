// Mutating and validating webhook configurations to admissionregistration.orch.io/v1: the old
// defaults (failurePolicy Ignore, matchPolicy Exact, timeoutSeconds 30, review version v1beta1)
// are written out so the webhooks behave as before; `sideEffects` must be None or NoneOnDryRun,
// which only the webhook's author can promise; names must be unique.
import type { Obj, Rule } from '../types.ts';

function webhook(w: Obj, at: string, notes: string[]): void {
  const keep = (field: string, value: unknown, v1: string) => {
    if (w[field] === undefined) {
      w[field] = value;
      notes.push(`${at}.${field}: set to ${JSON.stringify(value)}, the old default (v1 defaults to ${v1})`);
    }
  };
  keep('failurePolicy', 'Ignore', 'Fail');
  keep('matchPolicy', 'Exact', 'Equivalent');
  keep('timeoutSeconds', 30, '10');
  if (w.admissionReviewVersions === undefined) {
    w.admissionReviewVersions = ['v1beta1'];
    notes.push(
      `${at}.admissionReviewVersions: set to ["v1beta1"], the version the webhook was sent before (required in v1)`,
    );
  }
  if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun')
    notes.push(
      `${at}.sideEffects: ${w.sideEffects === undefined ? 'unset' : JSON.stringify(w.sideEffects)}; v1 requires None or NoneOnDryRun: set it once the webhook has no side effects (or skips them on dry run)`,
    );
}

const convert: Rule['convert'] = (o, _from, notes) => {
  const seen = new Set<string>();
  (o.webhooks ?? []).forEach((w: Obj, i: number) => {
    webhook(w, `webhooks[${i}]`, notes);
    if (seen.has(w.name))
      notes.push(`webhooks[${i}].name: ${JSON.stringify(w.name)} is used twice; v1 requires unique names`);
    seen.add(w.name);
  });
  return o;
};

export const webhookRules: Rule[] = [
  {
    kinds: ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    from: ['admissionregistration.orch.io/v1beta1'],
    to: 'admissionregistration.orch.io/v1',
    convert,
  },
];
