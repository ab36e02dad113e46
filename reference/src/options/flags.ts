// The command line's option sections and the checks their flags share. Each component of the
// server owns a section (options/<component>.ts): its flags, their lines of the help text and
// how their values are checked and recorded, as kube-apiserver's options packages do.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServerOptions } from '../config.ts';
import { parseGoDuration } from '../util/duration.ts';

/** A flag given wrong: the command line prints it and exits 2. */
export class UsageError extends Error {}

/** The values of the flags as node:util parseArgs reads them. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** What `serve` does besides building the server, as the flags set it. */
export interface ServeSettings {
  /** Absolute path of the kubeconfig to write. */
  kubeconfigPath?: string;
  /** An explicit `--token`. */
  token?: string;
  /** `--etcd`. */
  startEtcd?: boolean;
  /** `--exit-with-parent`. */
  exitWithParent?: boolean;
  /** `--quiet`. */
  quiet?: boolean;
}

/** A flag as node:util parseArgs takes it. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
}

/** What a section's parse reads and writes. */
export interface ParseContext {
  values: FlagValues;
  /** Relative paths are resolved against it. */
  cwd: string;
  /** The server options the flags set. */
  options: Partial<ServerOptions>;
  /** Warnings to print at start. */
  warnings: string[];
  serve: ServeSettings;
  /** A string flag's value. */
  str(name: string): string | undefined;
}

/** A component's flags: their definitions, their help text and how they are checked. */
export interface OptionSection {
  flags: Record<string, FlagSpec>;
  /** The lines of the help text for these flags, each ending in a newline. */
  usage: string;
  /** Checks the values and records them in the context; a wrong one is a UsageError. */
  parse(ctx: ParseContext): void;
}

/** A whole number flag within [min, max]. */
export function intFlag(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`--${name}: "${v}" is not a whole number`);
  const n = Number(v);
  if (n < min || n > max) throw new UsageError(`--${name}: ${n} is out of range [${min}, ${max}]`);
  return n;
}

/** A Go duration flag (`5m`, `30s`, `1h30m`, `500ms`, `0`) in milliseconds. */
export function durationFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const ms = parseGoDuration(v.trim());
  if (ms === undefined) throw new UsageError(`--${name}: "${v}" is not a duration (e.g. 30s, 5m, 1h30m)`);
  return ms;
}

/** A `true` or `false` flag. */
export function boolFlag(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw new UsageError(`--${name}: "${v}" is not true or false`);
  return v === 'true';
}

/** A readable file's absolute path. */
export function fileFlag(name: string, v: string, cwd: string): string {
  if (!v.trim()) throw new UsageError(`--${name}: must not be empty`);
  const p = resolve(cwd, v);
  if (!existsSync(p)) throw new UsageError(`--${name}: ${p} does not exist`);
  return p;
}

/** A path flag's absolute path; the file is read, and its absence reported, when the server starts. */
export function pathFlag(name: string, v: string | undefined, cwd: string): string | undefined {
  if (v === undefined) return undefined;
  if (!v.trim()) throw new UsageError(`--${name}: must not be empty`);
  return resolve(cwd, v);
}

/** A URL flag's value, parsed. */
export function urlFlag(name: string, v: string): URL {
  try {
    return new URL(v);
  } catch {
    throw new UsageError(`--${name}: "${v}" is not a valid URL`);
  }
}

/** Comma-separated values of a repeatable flag, none empty. */
export function listFlag(name: string, vs: string[] | undefined): string[] | undefined {
  if (!vs?.length) return undefined;
  const out = vs.flatMap((v) => v.split(',')).map((s) => s.trim());
  if (out.some((s) => !s)) throw new UsageError(`--${name}: empty entry in "${vs.join(',')}"`);
  return out;
}

/** Comma-separated values of a repeatable flag, empty entries dropped. */
export function splitList(vs: string[] | undefined): string[] | undefined {
  return vs
    ?.flatMap((p) => p.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The message of an error thrown while checking a flag's file, as a UsageError. */
export function asUsageError<T>(prefix: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError(`${prefix}${(e as Error).message}`);
  }
}
