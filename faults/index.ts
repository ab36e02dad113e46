// The catalogue of faults, one folder per suite area: `faults/<area>/faults.yaml` holds each
// fault's data (the rule it breaks, the cases that must catch it, the server it needs; checked
// by faults.schema.json), and the modules of the folder export its code (`HOOKS`, each under
// the fault's name). Both are found by a scan of the folders, so a new fault is an entry in the
// area's YAML and hooks of the same name. A fault without hooks, or hooks without a fault, fail
// the load. The node-agent-config suite runs commands, not requests: its faults are faulty
// commands (node-agent-config/commands.ts, exported apart).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadTableFile } from '../harness/src/yaml-tables.ts';
import type { Fault, FaultData, FaultHooks } from './proxy.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCHEMA = join(HERE, 'faults.schema.json');
/** Folders of the package that hold no area's faults. */
const NOT_AREAS = new Set(['test', 'node-agent-config']);

/** The area folders of `root`, each with its data file and its modules, in name order. */
function areas(root: string): { area: string; data: string; modules: string[] }[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !NOT_AREAS.has(d.name))
    .map((d) => d.name)
    .sort()
    .map((area) => ({
      area,
      data: join(root, area, 'faults.yaml'),
      modules: readdirSync(join(root, area))
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .sort()
        .map((f) => join(root, area, f)),
    }));
}

/** The faults of the area folders of `root` (this folder for the catalogue): data and hooks joined by name. */
export async function loadCatalogue(root: string): Promise<Fault[]> {
  const all: Fault[] = [];
  const names = new Set<string>();
  for (const a of areas(root)) {
    const hooks = new Map<string, { hooks: FaultHooks; file: string }>();
    for (const file of a.modules) {
      const mod = (await import(pathToFileURL(file).href)) as { HOOKS?: FaultHooks[] };
      for (const h of mod.HOOKS ?? []) {
        const seen = hooks.get(h.name);
        if (seen) throw new Error(`${file}: hooks "${h.name}" are in ${seen.file} too`);
        hooks.set(h.name, { hooks: h, file });
      }
    }
    if (!existsSync(a.data)) {
      if (hooks.size) throw new Error(`${join(root, a.area)}/ has hooks but no faults.yaml`);
      continue;
    }
    for (const d of loadTableFile<FaultData[]>(a.data, SCHEMA).doc) {
      if (names.has(d.name)) throw new Error(`${a.data}: fault "${d.name}" is in the catalogue twice`);
      names.add(d.name);
      const h = hooks.get(d.name);
      if (!h)
        throw new Error(`${a.data}: fault "${d.name}" has no hooks in ${join(root, a.area)}/*.ts (HOOKS)`);
      hooks.delete(d.name);
      all.push({ ...h.hooks, ...d, area: a.area });
    }
    for (const [name, h] of hooks)
      throw new Error(`${h.file}: hooks "${name}" belong to no fault of ${a.data}`);
  }
  return all;
}

export const FAULTS: Fault[] = await loadCatalogue(HERE);

export function faultByName(name: string): Fault {
  const f = FAULTS.find((x) => x.name === name);
  if (!f) throw new Error(`unknown fault "${name}"; known: ${FAULTS.map((x) => x.name).join(', ')}`);
  return f;
}
