// Linux CPU lists as the kernel and Kubernetes' cpuset package write them: comma-separated
// CPU ids and inclusive ranges, `0-3,5,8-9`; each range's start is not above its end.
// Returns the CPU ids, or undefined when the text is not a CPU list. The empty string is the
// empty set. A few lines written here: no maintained npm package reads this format.

const MAX_CPU = 1 << 20;

export function parseCpuList(text: string): number[] | undefined {
  if (text === '') return [];
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) return undefined;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from > to || to > MAX_CPU) return undefined;
    for (let c = from; c <= to; c++) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}
