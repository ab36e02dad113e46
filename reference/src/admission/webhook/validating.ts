// ValidatingAdmissionWebhook (doc3 plugin table): the matching validating webhooks called in
// parallel; any rejection, or any failure under `failurePolicy: Fail`, refuses the request (the
// first to arrive is answered, as Kubernetes 1.28 does). A failure ignored is recorded in the
// audit event (`failed-open.validating.webhook.admission.orch.io/round_0_index_<i>`).
import type { AuthorizerChain } from '../../authorization/chain.ts';
import type { Registry } from '../../registry/registry.ts';
import { celAuthorizer } from '../cel-authorizer.ts';
import type { AdmissionAttributes } from '../types.ts';
import { callWebhook, CallingWebhookError, WebhookRejection } from './call.ts';
import type { WebhookClient } from './client.ts';
import { internalError } from './errors.ts';
import type { WebhookAccessor } from './accessor.ts';
import { matchWebhook, type Match } from './matching.ts';
import type { WebhookSource } from './source.ts';

export const VALIDATING_PLUGIN = 'ValidatingAdmissionWebhook';

export class ValidatingDispatcher {
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
    const authorizer = () => celAuthorizer(this.authorizer, a.ctx.user);
    const relevant: Match[] = [];
    for (const hook of hooks) {
      const m = await matchWebhook(this.registry, hook, a, authorizer);
      if (m.error) throw m.error;
      if (m.match) relevant.push(m.match);
    }
    const refusals: unknown[] = [];
    await Promise.all(
      relevant.map(async (m, idx) => {
        try {
          await callWebhook(this.client, m, a);
        } catch (e) {
          if (e instanceof CallingWebhookError) {
            if (m.hook.failurePolicy === 'Ignore') {
              a.ctx.audit?.annotate(
                `failed-open.validating.webhook.admission.orch.io/round_0_index_${idx}`,
                m.hook.name,
              );
              return;
            }
            refusals.push(internalError(e.message));
          } else if (e instanceof WebhookRejection) refusals.push(e.status);
          else refusals.push(e);
        }
      }),
    );
    if (refusals.length) throw refusals[0];
  }
}
