// Every built-in kind, installed into a registry.
import type { Handler } from '../../handlers/scope.ts';
import type { NonResourceRoute } from '../../http/server.ts';
import type { Registry } from '../registry.ts';
import type { ResourceDef } from '../types.ts';
import { configMap } from './configmap.ts';
import { namespaceDef } from './namespace.ts';

export function builtinKinds(registry: () => Registry): ResourceDef[] {
  return [namespaceDef(registry), configMap];
}

export function installBuiltins(
  registry: Registry,
  _subresources: Map<string, Handler>,
  _routes: NonResourceRoute[],
): void {
  for (const def of builtinKinds(() => registry)) registry.add(def);
}
