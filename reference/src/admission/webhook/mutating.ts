// MutatingAdmissionWebhook (doc3 plugin table, "States and transitions"): the matching mutating
// webhooks called one after another (configurations by name, webhooks in order), each seeing
// the object as the previous ones left it. A patch that changes the object asks for a second
// round of the whole mutating chain (the built-in plugins run again; webhooks with
// `reinvocationPolicy: IfNeeded` called before the change are called again). Each call is
// recorded in the audit event: `mutation.webhook.admission.orch.io/round_<r>_index_<i>` with
// configuration, webhook and whether it mutated, and (Kubernetes 1.28, beyond doc3)
// `patch.webhook.admission.orch.io/round_<r>_index_<i>` with the patch applied, and
// `failed-open.mutation.webhook.admission.orch.io/round_<r>_index_<i>` when a failure was
// ignored. A patch that does not decode or apply is a webhook error like a failed call: the
// failure policy decides (doc3 "Errors"); under Fail the reply is Kubernetes' 500
// `Internal error occurred: <why>`.
import { isDeepStrictEqual } from 'node:util';
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { Registry } from '../../registry/registry.ts';
import { celAuthorizer } from '../cel-authorizer.ts';
import { type AdmissionAttributes, ReinvocationContext } from '../types.ts';
import { callWebhook, CallingWebhookError, WebhookRejection } from './call.ts';
import type { WebhookClient } from './client.ts';
import { internalError } from './errors.ts';
import type { WebhookAccessor } from './accessor.ts';
import { matchWebhook, type Match } from './matching.ts';
import { applyPatch, decodePatch, PatchError } from './patch.ts';
import { WebhookReinvocation } from './reinvocation.ts';
import type { WebhookSource } from './source.ts';

export const MUTATING_PLUGIN = 'MutatingAdmissionWebhook';
const GROUP = 'webhook.admission.orch.io';

export class MutatingDispatcher {
  constructor(
    private readonly registry: Registry,
    private readonly source: WebhookSource,
    private readonly client: WebhookClient,
    private readonly authorizer: AuthorizerChain,
  ) {}

  /** Nothing to wait for when no webhook is configured (most writes). */
  dispatch(a: AdmissionAttributes): Promise<void> | undefined {
    const hooks = this.source.webhooks();
    return hooks.length === 0 ? undefined : this.call(a, hooks);
  }

  private async call(a: AdmissionAttributes, hooks: readonly WebhookAccessor[]): Promise<void> {
    const r = (a.reinvocation ??= new ReinvocationContext());
    const state = r.value(MUTATING_PLUGIN, () => new WebhookReinvocation());
    // the built-in plugins changed the object since the last webhook saw it: every IfNeeded webhook called is due
    if (r.isReinvoke && state.outputChangedSinceLastCall(a.object))
      state.requireReinvokingPreviouslyInvoked();
    const authorizer = () => celAuthorizer(this.authorizer, a.ctx.user);
    try {
      for (let i = 0; i < hooks.length; i++) {
        const hook = hooks[i]!;
        const m = await matchWebhook(this.registry, hook, a, authorizer);
        if (m.error) throw m.error;
        if (!m.match) continue;
        if (r.isReinvoke && !state.shouldReinvoke(hook.uid)) continue;
        const round = r.isReinvoke ? 1 : 0;
        const key = `round_${round}_index_${i}`;
        let changed = false;
        let err: unknown;
        try {
          changed = await this.callAndPatch(m.match, a, key);
        } catch (e) {
          err = e;
        }
        a.ctx.audit?.annotate(
          `mutation.${GROUP}/${key}`,
          JSON.stringify({ configuration: hook.configuration, webhook: hook.name, mutated: changed }),
        );
        if (changed) {
          state.requireReinvokingPreviouslyInvoked();
          r.shouldReinvoke = true;
        }
        if (hook.reinvocationPolicy === 'IfNeeded') state.addPreviouslyInvoked(hook.uid);
        if (err === undefined) continue;
        if (err instanceof CallingWebhookError) {
          if (hook.failurePolicy === 'Ignore') {
            a.ctx.audit?.annotate(`failed-open.mutation.${GROUP}/${key}`, hook.name);
            continue;
          }
          throw internalError(err.message);
        }
        if (err instanceof WebhookRejection) throw err.status;
        if (err instanceof PatchError) {
          // doc3 Errors: a webhook error other than a rejection goes by the failure policy
          // (Kubernetes 1.28 refuses a bad patch even under Ignore; the text wins here)
          if (hook.failurePolicy === 'Ignore') {
            a.ctx.audit?.annotate(`failed-open.mutation.${GROUP}/${key}`, hook.name);
            continue;
          }
          throw internalError(err.message);
        }
        throw err;
      }
    } finally {
      state.setLastOutput(a.object);
    }
  }

  /** Calls the webhook and applies its patch to the request's object; true when the object changed. */
  private async callAndPatch(m: Match, a: AdmissionAttributes, key: string): Promise<boolean> {
    const hook = m.hook;
    const result = await callWebhook(this.client, m, a);
    if (!result.patch || result.patch.length === 0) return false;
    if (result.patchType !== 'JSONPatch')
      throw new CallingWebhookError(
        `failed calling webhook ${JSON.stringify(hook.name)}: unsupported patch type ${JSON.stringify(result.patchType ?? '')}`,
      );
    const ops = decodePatch(result.patch);
    if (Array.isArray(ops) && ops.length === 0) return false;
    const before = m.versioned.object;
    if (!before)
      throw new PatchError(
        `admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`,
      );
    const after = applyPatch(before, ops);
    const changed = !isDeepStrictEqual(before, after);
    a.ctx.audit?.annotate(
      `patch.${GROUP}/${key}`,
      JSON.stringify({
        configuration: hook.configuration,
        webhook: hook.name,
        patch: ops,
        patchType: 'JSONPatch',
      }),
    );
    m.versioned.object = after;
    a.object = m.back(after);
    return changed;
  }
}
