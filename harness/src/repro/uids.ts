// Comparing uids (and a watch's resourceVersions) by where they come from. A server makes a new uid for each object, so an
// answer's uid cannot be compared with the run's as it is; but whether it is the uid another
// step's answer held (the same object) or a new one is what a fault of identity changes (a uid
// reused, a client's uid kept). So before an answer is compared, each uid becomes where it
// first occurs in the other steps' answers (`@<step>.<n>`: the step's n-th uid), `~` when in
// none, or stays as it is when the case chose it itself. The script's awk (helpers.ts,
// `uids`) does the same to the replay's answer.

const UID = /"uid"\s*:\s*"([^"]*)"/g;

/** The keys labelled: uids; in a watch's events also resourceVersions (an event's version is its write's). */
const labelled = (watch: boolean) =>
  new RegExp(`"(${watch ? 'uid|resourceVersion' : 'uid'})"\\s*:\\s*"([^"]*)"`, 'g');

/**
 * `answer` with its uids (a watch's: uids and resourceVersions) labelled: `others` are the other
 * steps' answers by step number (1 first); `chosen` tells a uid the case sent itself.
 */
export function labelUids(
  answer: string,
  others: ReadonlyMap<number, string>,
  chosen: (uid: string) => boolean,
  watch = false,
): string {
  const at = new Map<string, string>();
  for (const step of [...others.keys()].sort((a, b) => a - b)) {
    let n = 0;
    for (const m of others.get(step)!.matchAll(labelled(watch))) {
      n++;
      if (!at.has(m[2]!)) at.set(m[2]!, `@${step}.${n}`);
    }
  }
  return answer.replace(
    labelled(watch),
    (_all, key: string, v: string) => `"${key}":"${key === 'uid' && chosen(v) ? v : (at.get(v) ?? '~')}"`,
  );
}

/** The uids the requests chose (sent before any answer held them), for the script's KEEP_UIDS. */
export function chosenUids(bodies: readonly string[], chosen: (uid: string) => boolean): string[] {
  const out = new Set<string>();
  for (const b of bodies) for (const m of b.matchAll(UID)) if (chosen(m[1]!)) out.add(m[1]!);
  return [...out];
}
