// package-lock.json must be one `npm ci` accepts: npm 11 refuses a lock in which a locked
// package declares an optional dependency that has no entry (scripts/lock-optional.ts says
// why npm leaves such entries out, and puts them back: `npm run lock:optional`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Lock, missingOptional, platformFromName } from '../lock-optional.ts';
import { ROOT } from './helpers.ts';

const lock = (packages: Lock['packages']): Lock => ({ packages });

describe('package-lock.json', () => {
  it('has an entry for every optional dependency of every locked package (else npm ci refuses it)', () => {
    const committed = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const missing = missingOptional(committed).map((m) => `${m.name}@${m.version} (of ${m.parent})`);
    expect(missing, 'run `npm run lock:optional` and commit package-lock.json').toEqual([]);
  });
});

describe('lock-optional', () => {
  it('finds optional dependencies without an entry, resolving as node does (nested, then hoisted)', () => {
    const l = lock({
      '': {},
      'node_modules/a': {
        version: '1.0.0',
        dev: true,
        optionalDependencies: { 'a-linux-x64': '1.0.0', 'a-darwin-arm64': '1.0.0' },
      },
      'node_modules/a-linux-x64': { version: '1.0.0', optional: true },
      'node_modules/b': { version: '2.0.0', optionalDependencies: { nested: '^1.0.0', hoisted: '^1.0.0' } },
      'node_modules/b/node_modules/nested': { version: '1.0.1', optional: true },
      'node_modules/hoisted': { version: '1.0.0', optional: true },
    });
    expect(missingOptional(l)).toEqual([
      {
        path: 'node_modules/a-darwin-arm64',
        name: 'a-darwin-arm64',
        version: '1.0.0',
        parent: 'node_modules/a',
        dev: true,
      },
    ]);
  });

  it('reads a platform from a package name only when it names exactly one os and one cpu', () => {
    expect(platformFromName('@biomejs/cli-android-arm64')).toEqual({ os: ['android'], cpu: ['arm64'] });
    expect(platformFromName('@biomejs/cli-linux-x64-musl')).toEqual({
      os: ['linux'],
      cpu: ['x64'],
      libc: ['musl'],
    });
    expect(platformFromName('@rolldown/binding-linux-arm64-gnu')).toEqual({
      os: ['linux'],
      cpu: ['arm64'],
      libc: ['glibc'],
    });
    expect(platformFromName('fsevents')).toBeUndefined();
    expect(platformFromName('@scope/darwin-linux-x64')).toBeUndefined();
  });
});
