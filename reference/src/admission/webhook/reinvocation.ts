// What the mutating webhooks remember between the two rounds of the mutating phase (Kubernetes
// 1.28's reinvocation): the webhooks with `reinvocationPolicy: IfNeeded` called before the
// object last changed are called again in the second round, once; a webhook never called in
// the first round is not called in the second. When the built-in plugins changed the object
// between the last webhook and the second round, every such webhook called so far is due.
import { isDeepStrictEqual } from 'node:util';
import type { KObject } from '../../storage/types.ts';

export class WebhookReinvocation {
  private lastOutput: KObject | undefined;
  private previouslyInvoked = new Set<string>();
  private readonly due = new Set<string>();

  shouldReinvoke(uid: string): boolean {
    return this.due.has(uid);
  }

  outputChangedSinceLastCall(o: KObject | undefined): boolean {
    return !isDeepStrictEqual(this.lastOutput, o);
  }

  setLastOutput(o: KObject | undefined): void {
    this.lastOutput = o === undefined ? undefined : structuredClone(o);
  }

  addPreviouslyInvoked(uid: string): void {
    this.previouslyInvoked.add(uid);
  }

  requireReinvokingPreviouslyInvoked(): void {
    for (const uid of this.previouslyInvoked) this.due.add(uid);
    this.previouslyInvoked = new Set();
  }
}
