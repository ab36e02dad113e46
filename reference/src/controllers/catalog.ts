// The controllers `--controllers` switches, as Kubernetes 1.28's controller manager reads the
// flag: a comma-separated list where `*` turns on the controllers that are on by default, a
// name turns one on and `-name` off, the first entry naming a controller deciding for it.
// A controller is named by its short name (`tokencleaner`) or its 1.28 canonical name
// (`token-cleaner-controller`); the token cleaner and bootstrap signer are off by default, so a
// cluster runs `*,tokencleaner,bootstrapsigner`.

export interface ControllerName {
  /** The short name (Kubernetes' alias). */
  name: string;
  /** Kubernetes 1.28's canonical name. */
  canonical: string;
  offByDefault?: boolean;
}

export const CONTROLLERS: readonly ControllerName[] = [
  { name: 'serviceaccount', canonical: 'serviceaccount-controller' },
  { name: 'tokencleaner', canonical: 'token-cleaner-controller', offByDefault: true },
  { name: 'bootstrapsigner', canonical: 'bootstrap-signer-controller', offByDefault: true },
  { name: 'namespace', canonical: 'namespace-controller' },
  { name: 'root-ca-cert-publisher', canonical: 'root-ca-certificate-publisher-controller' },
  { name: 'garbagecollector', canonical: 'garbage-collector-controller' },
  { name: 'deployment', canonical: 'deployment-controller' },
  { name: 'replicaset', canonical: 'replicaset-controller' },
  { name: 'resourcequota', canonical: 'resourcequota-controller' },
];

/** Every name `--controllers` accepts (short and canonical). */
export const KNOWN_CONTROLLERS: readonly string[] = CONTROLLERS.flatMap((c) => [c.name, c.canonical]);

/** A name of the list (short or canonical, without `-`) as its short name, or undefined when unknown. */
export function controllerNamed(name: string): ControllerName | undefined {
  return CONTROLLERS.find((c) => c.name === name || c.canonical === name);
}

/** Whether `--controllers` (default `*`) runs the controller of short name `name`. */
export function controllerEnabled(list: readonly string[] | undefined, name: string): boolean {
  const c = controllerNamed(name);
  if (!c) return false;
  let star = false;
  for (const entry of list ?? ['*']) {
    if (entry === '*') star = true;
    else if (controllerNamed(entry)?.name === c.name) return true;
    else if (entry.startsWith('-') && controllerNamed(entry.slice(1))?.name === c.name) return false;
  }
  return star && !c.offByDefault;
}
