// One run of a kubectl binary to completion, for the tests that drive the real kubectl: its
// exit code (-1 when it could not start or was killed), stdout and stderr. Never rejects.
import { type ExecFileOptions, execFile } from 'node:child_process';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function runKubectl(bin: string, args: string[], options: ExecFileOptions): Promise<Run> {
  return new Promise((resolve) => {
    execFile(bin, args, options, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : -1
        : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
