// `--admission-control-config-file` (doc3 "Webhook contract"): an AdmissionConfiguration of
// `apiserver.config.orch.io/v1` (the older `apiserver.orch.io/v1alpha1` is read too, as 1.28
// still reads it) whose `plugins` entries give each plugin's configuration, inline
// (`configuration`) or in a file (`path`, relative to this file's directory), YAML or JSON.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { yaml } from '../util/yaml.ts';

const GROUPS = ['apiserver.config.orch.io/v1', 'apiserver.orch.io/v1alpha1'];

function readStructured(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`${what}: cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return yaml().parse(text);
  } catch (e) {
    throw new Error(`${what}: ${path} is not YAML or JSON: ${(e as Error).message}`);
  }
}

/** Each plugin's configuration by plugin name; throws an Error that names the file and the entry. */
export function loadAdmissionConfig(file: string): Map<string, unknown> {
  const what = '--admission-control-config-file';
  const doc = readStructured(file, what) as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new Error(`${what}: ${file} is not an object`);
  if (doc.kind !== 'AdmissionConfiguration' || !GROUPS.includes(String(doc.apiVersion)))
    throw new Error(
      `${what}: ${file} is ${String(doc.apiVersion)} ${String(doc.kind)}, want kind AdmissionConfiguration of ${GROUPS.join(' or ')}`,
    );
  const out = new Map<string, unknown>();
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new Error(`${what}: plugins must be a list`);
  plugins.forEach((p: unknown, i) => {
    const e = p as Record<string, unknown> | null;
    const at = `${what}: plugins[${i}]`;
    if (!e || typeof e !== 'object' || typeof e.name !== 'string' || !e.name)
      throw new Error(`${at}: name is required`);
    if (out.has(e.name)) throw new Error(`${at}: plugin "${e.name}" is configured twice`);
    if (e.configuration !== undefined && e.path !== undefined)
      throw new Error(`${at} (${e.name}): give configuration or path, not both`);
    if (typeof e.path === 'string')
      out.set(e.name, readStructured(resolve(dirname(file), e.path), `${at} (${e.name})`));
    else if (e.path !== undefined) throw new Error(`${at} (${e.name}): path must be a string`);
    else out.set(e.name, e.configuration ?? {});
  });
  return out;
}
