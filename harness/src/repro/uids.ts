// Comparing uids by where they come from. A server makes a new uid for each object, so an
// answer's uid cannot be compared with the run's as it is; but whether it is the uid another
// step's answer held (the same object) or a new one is what a fault of identity changes (a uid
// reused, a client's uid kept). So before an answer is compared, each uid becomes where it
// first occurs in the other steps' answers (`@<step>.<n>`: the step's n-th uid), `~` when in
// none, or stays as it is when the case chose it itself. The script's awk (helpers.ts,
// `uids`) does the same to the replay's answer.

const UID = /"uid"\s*:\s*"([^"]*)"/g;

/**
 * `answer` with its uids labelled: `others` are the other steps' answers by step number (1
 * first); `chosen` tells a uid the case sent itself.
 */
export function labelUids(
  answer: string,
  others: ReadonlyMap<number, string>,
  chosen: (uid: string) => boolean,
): string {
  const at = new Map<string, string>();
  for (const step of [...others.keys()].sort((a, b) => a - b)) {
    let n = 0;
    for (const m of others.get(step)!.matchAll(UID)) {
      n++;
      if (!at.has(m[1]!)) at.set(m[1]!, `@${step}.${n}`);
    }
  }
  return answer.replace(UID, (_all, v: string) => `"uid":"${chosen(v) ? v : (at.get(v) ?? '~')}"`);
}

/** The uids the requests chose (sent before any answer held them), for the script's KEEP_UIDS. */
export function chosenUids(bodies: readonly string[], chosen: (uid: string) => boolean): string[] {
  const out = new Set<string>();
  for (const b of bodies) for (const m of b.matchAll(UID)) if (chosen(m[1]!)) out.add(m[1]!);
  return [...out];
}
