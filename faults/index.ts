// The catalogue of faults: every `faults/<area>/*.ts` that exports `FAULTS` (each fault breaks
// one rule of the spec and names the cases of suites/<area> that must catch it), found by a scan
// of the folders, so a new file of faults joins the catalogue as it is. The node-agent-config
// suite runs commands, not requests: its faults are faulty commands
// (node-agent-config/commands.ts, exported apart).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Fault } from './proxy.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Folders of the package that hold no area's faults. */
const NOT_AREAS = new Set(['test']);

/** The area folders, and in each its modules, in name order. */
function modules(): { area: string; file: string }[] {
  const out: { area: string; file: string }[] = [];
  for (const d of readdirSync(HERE, { withFileTypes: true }))
    if (d.isDirectory() && !NOT_AREAS.has(d.name))
      for (const f of readdirSync(join(HERE, d.name)))
        if (f.endsWith('.ts') && !f.endsWith('.test.ts')) out.push({ area: d.name, file: join(HERE, d.name, f) });
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

async function load(): Promise<Fault[]> {
  const all: Fault[] = [];
  for (const m of modules()) {
    const mod = (await import(pathToFileURL(m.file).href)) as { FAULTS?: Fault[] };
    if (!mod.FAULTS) continue;
    for (const f of mod.FAULTS)
      if (f.area !== m.area) throw new Error(`${m.file}: fault "${f.name}" names area "${f.area}", but lives in faults/${m.area}/`);
    all.push(...mod.FAULTS);
  }
  return all;
}

export const FAULTS: Fault[] = await load();

export function faultByName(name: string): Fault {
  const f = FAULTS.find((x) => x.name === name);
  if (!f) throw new Error(`unknown fault "${name}"; known: ${FAULTS.map((x) => x.name).join(', ')}`);
  return f;
}
