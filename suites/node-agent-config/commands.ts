// The validator and the defaulter the node agent configuration cases run: commands given by
// the run (ORCH_NODE_CONFIG_VALIDATOR, ORCH_NODE_CONFIG_DEFAULTER; `orch-conformance run
// --node-config-validator CMD --node-config-defaulter CMD`), by default this repository's own
// `orch-conformance node-config validate` and `... default`. A command is a shell command line;
// it receives the path of a file as its last argument. The validator exits 0 on a valid file
// and non-zero on an invalid one, printing the field paths at fault; the defaulter prints the
// file with its defaults applied (YAML or JSON). No case needs an API server. The repository's
// own command (scripts/node-config.ts, what `orch-conformance node-config` runs) is started
// compiled to plain JavaScript: hundreds of starts, each without registering a TypeScript loader.
// A command `in-process:["MODULE","ARG",...]` (a JSON array) is no process: MODULE's default export is called with
// the arguments and the file, as `(argv, out, err) => exit code`, in the test's own worker (the
// fault meta test runs its faulty commands so: hundreds of files a run, many runs); what it
// throws ends it as an uncaught error ends node, with exit code 1.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilePlain } from '../../harness/src/compile-plain.ts';
import { runEnv } from '../../harness/src/run-env.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
let own: string | undefined;
/** This repository's `node-config` command, compiled on first use. */
function ownCommand(): string {
  own ??= `${quote(process.execPath)} ${quote(compilePlain(ROOT, join(ROOT, 'scripts', 'node-config.ts')))}`;
  return own;
}

export const VALIDATOR_ENV = 'ORCH_NODE_CONFIG_VALIDATOR';
export const DEFAULTER_ENV = 'ORCH_NODE_CONFIG_DEFAULTER';

export function validatorCommand(): string {
  return runEnv()[VALIDATOR_ENV] || `${ownCommand()} validate`;
}

export function defaulterCommand(): string {
  return runEnv()[DEFAULTER_ENV] || `${ownCommand()} default`;
}

export interface CommandResult {
  command: string;
  /** The exit code (null when a signal ended the command). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The file's text, for failure messages. */
  file: string;
}

/** Commands running at once: each is a process start, so about one per CPU (and at least two). */
const LIMIT = Math.max(2, availableParallelism());
let running = 0;
const waiting: (() => void)[] = [];

async function slot<T>(body: () => Promise<T>): Promise<T> {
  if (running >= LIMIT) await new Promise<void>((res) => waiting.push(res));
  running++;
  try {
    return await body();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

const TIMEOUT_MS = 20_000;

/** Runs already started, by command and file: the defaults rows share one defaulted base file. */
const memo = new Map<string, Promise<CommandResult>>();

/**
 * Writes `text` to a temporary file and runs `command FILE` through the shell. The same
 * command on the same file runs once (the result is shared).
 */
export function runOnText(command: string, text: string, name = 'config.yaml'): Promise<CommandResult> {
  const key = JSON.stringify([command, name, text]);
  let p = memo.get(key);
  if (!p) {
    p = runOnce(command, text, name);
    memo.set(key, p);
  }
  return p;
}

/** What an `in-process:` command's module exports: the command line's work, answering its exit code. */
export type InProcessCommand = (
  argv: string[],
  out: { write(s: string): unknown },
  err: { write(s: string): unknown },
) => number | Promise<number>;

export const IN_PROCESS = 'in-process:';

async function runInProcess(command: string, text: string, name: string): Promise<CommandResult> {
  const [module, ...args] = JSON.parse(command.slice(IN_PROCESS.length)) as string[];
  const main = (await import(module!)).default as InProcessCommand;
  const dir = mkdtempSync(join(tmpdir(), 'orch-nodecfg-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  let stdout = '';
  let stderr = '';
  try {
    let code: number;
    try {
      code = await main(
        [...args, file],
        { write: (s: string) => (stdout += s) },
        { write: (s: string) => (stderr += s) },
      );
    } catch (e) {
      // as a process that throws: the error on stderr, exit code 1
      stderr += `${(e as Error).stack ?? e}\n`;
      code = 1;
    }
    return { command, code, stdout, stderr, file: text };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runOnce(command: string, text: string, name: string): Promise<CommandResult> {
  if (command.startsWith(IN_PROCESS)) return runInProcess(command, text, name);
  return slot(
    () =>
      new Promise<CommandResult>((res, rej) => {
        const dir = mkdtempSync(join(tmpdir(), 'orch-nodecfg-'));
        const file = join(dir, name);
        writeFileSync(file, text);
        const child = spawn('sh', ['-c', `${command} ${quote(file)}`], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => {
          stdout += d;
        });
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
        child.on('error', (e) => {
          clearTimeout(timer);
          rmSync(dir, { recursive: true, force: true });
          rej(e);
        });
        child.on('close', (code) => {
          clearTimeout(timer);
          rmSync(dir, { recursive: true, force: true });
          res({ command, code, stdout, stderr, file: text });
        });
      }),
  );
}

/** The output of a command as one text (the validator may print its errors to either stream). */
export const outputOf = (r: CommandResult) => `${r.stdout}${r.stderr}`;

/** Whether the output names `path` as a field path (not as part of a longer name). */
export function namesPath(output: string, path: string): boolean {
  const esc = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_.\\]])${esc}($|[^A-Za-z0-9_])`, 'm').test(output);
}

/** The command and how it ended, in words for a failure message. */
export function describeRun(r: CommandResult): string {
  const out = outputOf(r).trim();
  const shown = out.length > 1200 ? `${out.slice(0, 1200)}…` : out;
  const how =
    r.code === null ? 'killed (timeout)' : r.code === 0 ? 'exit code 0 (accepted)' : `exit code ${r.code}`;
  return `${how}; output: ${shown ? JSON.stringify(shown) : '(none)'}\n  command: ${r.command} FILE`;
}
