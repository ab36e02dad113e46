// Types of scripts/bundle.mjs (plain JavaScript: it runs before tsx is registered).
export interface BundlePaths {
  file: string;
  /** The folder of the chunks the bundle loads with import(). */
  chunks: string;
  inputs: string;
  lock: string;
}
export function bundlePaths(entry: string): BundlePaths;
export function upToDate(entry: string): boolean;
export function build(entry: string): Promise<boolean>;
export function load(entry: string): Promise<Record<string, unknown>>;
export const ENTRIES: string[];
