// A free TCP port on a host, for servers the harness starts or serves.
import { createServer } from 'node:net';

/** A free TCP port on `host` (bound then released). */
export function freePort(host: string): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}
