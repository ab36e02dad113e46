// A failing disk for the durability and health tests: `node:fs` with an fdatasync that fails
// with EIO while `fault.failSync` is set, and writeSync and writevSync that fail with ENOSPC while
// `fault.failWrite` is set; with `fault.held` set, every fdatasync waits there to be released;
// with `fault.writevCalls` set, each writevSync counts there.
// Use from a hoisted mock:
//   const fault = vi.hoisted(() => ({ failSync: false }));
//   vi.mock('node:fs', async (orig) => (await import('./fs-fault.ts')).withFailingSync(await orig(), fault));
import type * as fs from 'node:fs';

export function withFailingSync(
  real: typeof fs,
  fault: { failSync: boolean; failWrite?: boolean; held?: (() => void)[]; writevCalls?: number },
) {
  const fdatasync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    // a slow disk: while `fault.held` is set, each fdatasync waits there until released
    if (fault.held) {
      fault.held.push(() => real.fdatasync(fd, cb));
      return;
    }
    if (!fault.failSync) return real.fdatasync(fd, cb);
    const err = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    setImmediate(() => cb(err));
  };
  // a full disk: writes fail with ENOSPC while `fault.failWrite` is set
  const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const writeSync = ((...args: Parameters<typeof real.writeSync>) => {
    if (fault.failWrite) throw full();
    return (real.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof real.writeSync;
  const writevSync = ((...args: Parameters<typeof real.writevSync>) => {
    if (fault.writevCalls !== undefined) fault.writevCalls++;
    if (fault.failWrite) throw full();
    return real.writevSync(...args);
  }) as typeof real.writevSync;
  return {
    ...real,
    default: { ...real, fdatasync, writeSync, writevSync },
    fdatasync,
    writeSync,
    writevSync,
  };
}
