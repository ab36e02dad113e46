// vitest global setup for the `suites` project of `npm test`: unless ORCH_ENDPOINT names a
// target, start an embedded reference server and point the suites at it.
import { build, EMBEDDED_GATES } from '../reference/src/index.ts';

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.ORCH_ENDPOINT) return async () => {};
  const server = await build({ inMemory: true, tls: true, featureGates: EMBEDDED_GATES });
  const { url } = await server.listen();
  process.env.ORCH_ENDPOINT = url;
  process.env.ORCH_TOKEN = server.adminToken;
  process.env.ORCH_CA = server.caPem;
  return async () => {
    await server.close();
  };
}
