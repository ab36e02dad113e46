// The URL library of doc2 (Kubernetes 1.28's): `isURL(string)`, `url(string)` and the accessors
// getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery.
import type { Environment } from '@marcbachmann/cel-js';
import { CelURL, parseRequestURI, urlOrThrow } from './url.ts';

export const URL_TYPE = 'orch.URL';

export function registerUrlLibrary(env: Environment): void {
  env.registerType(URL_TYPE, CelURL);
  env.registerFunction(`url(string): ${URL_TYPE}`, (s: string) => urlOrThrow(s));
  env.registerFunction('isURL(string): bool', (s: string) => typeof parseRequestURI(s) !== 'string');
  env.registerFunction(`${URL_TYPE}.getScheme(): string`, (u: CelURL) => u.scheme);
  env.registerFunction(`${URL_TYPE}.getHost(): string`, (u: CelURL) => u.host);
  env.registerFunction(`${URL_TYPE}.getHostname(): string`, (u: CelURL) => u.hostname());
  env.registerFunction(`${URL_TYPE}.getPort(): string`, (u: CelURL) => u.port());
  env.registerFunction(`${URL_TYPE}.getEscapedPath(): string`, (u: CelURL) => u.escapedPath());
  env.registerFunction(`${URL_TYPE}.getQuery(): map<string, list<string>>`, (u: CelURL) => u.query());
}
