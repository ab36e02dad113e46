// The pod-template-hash a Deployment's ReplicaSets carry (Kubernetes' ComputeHash): a 32-bit
// FNV-1a hash of the pod template and the collision count, its decimal digits spelled in the
// letters Kubernetes uses for generated names. Kubernetes hashes the Go structure as printed by
// its deep printer, which is not reproduced here: the same template gives the same hash here,
// not the same hash as on a cluster.
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with keys sorted, so that equal templates print alike. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function templateHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonical(template)));
  if (collisionCount !== undefined) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(b, h);
  }
  return [...String(h)].map((c) => ALPHABET[c.charCodeAt(0) % ALPHABET.length]).join('');
}
