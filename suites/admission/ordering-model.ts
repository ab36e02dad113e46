// A model of doc3 § States and transitions for one write and a set of webhooks: what a
// server must call, in which order, what each webhook sees, and how the write ends.
//
//   - mutating webhooks run in sequence (Kubernetes 1.28: configurations by name, then each
//     configuration's webhooks in order), each seeing the object as the ones before left it;
//   - a webhook that answers with a patch that changes the object makes every webhook before it
//     with `reinvocationPolicy: IfNeeded` due for one more call, in a second round that runs
//     once, in the same order, over the due webhooks only (a change in that round marks no
//     third one);
//   - a rejection (allowed: false), or a failure under `failurePolicy: Fail`, ends the write
//     at once: no later webhook is called, validating ones neither; a failure under `Ignore`
//     changes nothing, but the webhook was called (with IfNeeded it is due again when a later
//     webhook changes the object);
//   - a validating webhook that answers with a patch has answered wrongly (doc3: a patch is for
//     mutating webhooks only; Kubernetes 1.28 takes it as a failed call), so its failure policy
//     decides;
//   - then validating webhooks, all called (in parallel: their order is not part of the model),
//     each seeing the final object; any rejection or failing `Fail` rejects the write;
//   - otherwise the object is stored as the mutating phase left it.
//
// The webhooks of the model are abstract: whether each matches the write is decided up front
// (the suite turns "no" into a rule, a selector or a match condition that does not match), and
// what each answers is a behaviour. A patching webhook adds the label `<id>: "1"`, so it is
// idempotent (doc3: mutating webhooks must be): called again it changes nothing.

export type Behaviour = 'allow' | 'deny' | 'patch' | 'fail';

export interface ModelWebhook {
  /** Unique, short, a valid label key part. */
  id: string;
  phase: 'mutating' | 'validating';
  /** The configuration's name (mutating order: by this, then `index`). */
  configuration: string;
  index: number;
  matches: boolean;
  behaviour: Behaviour;
  failurePolicy: 'Fail' | 'Ignore';
  /** Mutating only. */
  reinvocation: 'Never' | 'IfNeeded';
}

export interface ModelCall {
  id: string;
  /** 0: the first pass; 1: the reinvocation round. */
  round: 0 | 1;
  /** The labels the webhook saw on the object. */
  labels: Record<string, string>;
}

export interface ModelOutcome {
  /** Mutating calls in order. */
  mutating: ModelCall[];
  /** Validating calls (order not modelled: sorted by id). */
  validating: ModelCall[];
  /**
   * Rejected (denial, or failure under Fail) by one of these webhooks — one in the mutating
   * phase; in the validating phase any of those that reject may be the one the answer names —
   * or stored with these labels.
   */
  result: { rejectedBy: string[] } | { stored: Record<string, string> };
}

/** The order a server calls mutating webhooks in (Kubernetes 1.28). */
export function mutatingOrder(hooks: readonly ModelWebhook[]): ModelWebhook[] {
  return hooks
    .filter((h) => h.phase === 'mutating')
    .sort((a, b) =>
      a.configuration < b.configuration ? -1 : a.configuration > b.configuration ? 1 : a.index - b.index,
    );
}

export function labelOf(id: string): string {
  return `w-${id}`;
}

/** A webhook whose call ends the write: a denial, or a failure that its policy does not ignore. */
function rejects(h: ModelWebhook): boolean {
  const fails = h.behaviour === 'fail' || (h.phase === 'validating' && h.behaviour === 'patch');
  return h.behaviour === 'deny' || (fails && h.failurePolicy === 'Fail');
}

export function expectedOutcome(
  hooks: readonly ModelWebhook[],
  initial: Record<string, string>,
): ModelOutcome {
  const labels = { ...initial };
  const mutating: ModelCall[] = [];
  const order = mutatingOrder(hooks).filter((h) => h.matches);
  const invokedReinvocable: string[] = [];
  let due = new Set<string>();
  for (const round of [0, 1] as const) {
    if (round === 1 && due.size === 0) break;
    const callNow = round === 0 ? order : order.filter((h) => due.has(h.id));
    const nextDue = new Set<string>();
    for (const h of callNow) {
      mutating.push({ id: h.id, round, labels: { ...labels } });
      if (rejects(h)) return { mutating, validating: [], result: { rejectedBy: [h.id] } };
      // a failure its policy ignores changes nothing, yet the webhook counts as called
      let changed = false;
      if (h.behaviour === 'patch' && labels[labelOf(h.id)] !== '1') {
        labels[labelOf(h.id)] = '1';
        changed = true;
      }
      if (changed && round === 0) for (const r of invokedReinvocable) nextDue.add(r);
      if (round === 0 && h.reinvocation === 'IfNeeded') invokedReinvocable.push(h.id);
    }
    due = nextDue;
  }
  const validators = hooks
    .filter((h) => h.phase === 'validating' && h.matches)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const validating = validators.map((h) => ({ id: h.id, round: 0 as const, labels: { ...labels } }));
  const rejecting = validators.filter(rejects).map((h) => h.id);
  if (rejecting.length) return { mutating, validating, result: { rejectedBy: rejecting } };
  return { mutating, validating, result: { stored: labels } };
}
