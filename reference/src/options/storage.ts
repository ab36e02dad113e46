// Where objects are kept and for how long their history is: --data-dir, --in-memory,
// --no-fsync, --compact-bytes; --history-seconds, --continue-ttl-seconds, --bookmark-interval-seconds.
// etcd's flags: options/etcd.ts.
import { resolve } from 'node:path';
import { DEFAULTS } from '../config.ts';
import { intFlag, type OptionSection } from './flags.ts';

export const localStorageOptions: OptionSection = {
  flags: {
    'data-dir': { type: 'string' },
    'in-memory': { type: 'boolean' },
    'no-fsync': { type: 'boolean' },
    'compact-bytes': { type: 'string' },
  },
  usage: `  --data-dir DIR             durable store, certificates, admin token (default ${DEFAULTS.dataDir})
  --in-memory                keep objects in memory only (nothing survives a restart)
  --no-fsync                 do not fdatasync the write-ahead log before answering writes
  --compact-bytes N          write a snapshot and start the write-ahead log again once it holds
                             N bytes (default 67108864, 64 MiB)
`,
  parse({ values, str, cwd, options }) {
    options.dataDir = resolve(cwd, str('data-dir') ?? DEFAULTS.dataDir);
    options.inMemory = values['in-memory'] === true;
    options.fsync = values['no-fsync'] !== true;
    const cb = intFlag('compact-bytes', str('compact-bytes'), 4096, Number.MAX_SAFE_INTEGER);
    if (cb !== undefined) options.compactBytes = cb;
  },
};

export const historyOptions: OptionSection = {
  flags: {
    'history-seconds': { type: 'string' },
    'continue-ttl-seconds': { type: 'string' },
    'bookmark-interval-seconds': { type: 'string' },
  },
  usage: `  --history-seconds N        change history kept for watches and exact reads (default ${DEFAULTS.historySeconds})
  --continue-ttl-seconds N   lifetime of list continue tokens (default ${DEFAULTS.continueTtlSeconds})
  --bookmark-interval-seconds N
                             a BOOKMARK to each watch with allowWatchBookmarks=true every N s
                             (default ${DEFAULTS.bookmarkIntervalMs / 1000})
`,
  parse({ str, options }) {
    const week = 7 * 24 * 3600;
    const hs = intFlag('history-seconds', str('history-seconds'), 1, week);
    if (hs !== undefined) options.historySeconds = hs;
    const ct = intFlag('continue-ttl-seconds', str('continue-ttl-seconds'), 1, week);
    if (ct !== undefined) options.continueTtlSeconds = ct;
    const bi = intFlag('bookmark-interval-seconds', str('bookmark-interval-seconds'), 1, 24 * 3600);
    if (bi !== undefined) options.bookmarkIntervalMs = bi * 1000;
  },
};
