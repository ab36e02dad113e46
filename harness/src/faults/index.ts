// The catalogue of faults: each breaks one rule of the spec and names the suite area that
// must catch it. Each area keeps its faults in its own file here.
import type { Fault } from '../fault-proxy.ts';
import { CORE_FAULTS } from './doc1-core.ts';

export const FAULTS: Fault[] = [...CORE_FAULTS];

export function faultByName(name: string): Fault {
  const f = FAULTS.find((x) => x.name === name);
  if (!f) throw new Error(`unknown fault "${name}"; known: ${FAULTS.map((x) => x.name).join(', ')}`);
  return f;
}
