// A failing disk for the durability and health tests: `node:fs` with an fdatasync that fails
// with EIO while `fault.failSync` is set. Use from a hoisted mock:
//   const fault = vi.hoisted(() => ({ failSync: false }));
//   vi.mock('node:fs', async (orig) => (await import('./fs-fault.ts')).withFailingSync(await orig(), fault));
import type * as fs from 'node:fs';

export function withFailingSync(real: typeof fs, fault: { failSync: boolean }) {
  const fdatasync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    if (!fault.failSync) return real.fdatasync(fd, cb);
    const err = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    setImmediate(() => cb(err));
  };
  return { ...real, default: { ...real, fdatasync }, fdatasync };
}
