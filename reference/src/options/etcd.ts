// The store in etcd: --etcd-servers or --etcd (a private one), then how to reach it: the key
// prefix, TLS and the compaction interval.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { durationFlag, type FlagValues, type OptionSection, UsageError } from './flags.ts';

/** The servers of --etcd-servers, one a URL. */
function etcdServers(values: FlagValues): string[] {
  return ((values['etcd-servers'] as string[] | undefined) ?? []).flatMap((v) => v.split(','));
}

/** Whether the objects are in etcd (--etcd-servers or --etcd). */
function inEtcd(values: FlagValues): boolean {
  return etcdServers(values).length > 0 || !!values.etcd;
}

export const etcdServersOptions: OptionSection = {
  flags: {
    'etcd-servers': { type: 'string', multiple: true },
    etcd: { type: 'boolean' },
  },
  usage: `  --etcd-servers URL[,URL]   keep the objects in etcd v3 at these client URLs (http:// or https://)
                             instead of the write-ahead log; several servers on one etcd (and
                             prefix) serve one API. Resource versions are etcd revisions
  --etcd                     start a private etcd (Debian's etcd-server) on a free loopback port
                             with a temporary data directory, use it, and stop it on exit
`,
  parse({ values, options, serve }) {
    serve.startEtcd = values.etcd === true;
    if (!inEtcd(values)) return;
    const servers = etcdServers(values);
    if (values['in-memory']) throw new UsageError('--in-memory and --etcd-servers/--etcd exclude each other');
    if (servers.length && values.etcd)
      throw new UsageError('--etcd starts its own etcd: not together with --etcd-servers');
    for (const u of servers) {
      let ok = false;
      try {
        const parsed = new URL(u.trim());
        ok = (parsed.protocol === 'http:' || parsed.protocol === 'https:') && !!parsed.host;
      } catch {}
      if (!ok) throw new UsageError(`--etcd-servers: "${u}" is not an http:// or https:// URL`);
    }
    options.etcdServers = servers.map((u) => u.trim());
  },
};

const CONNECTION_FLAGS = [
  'etcd-prefix',
  'etcd-cafile',
  'etcd-certfile',
  'etcd-keyfile',
  'etcd-compaction-interval',
] as const;

export const etcdConnectionOptions: OptionSection = {
  flags: Object.fromEntries(CONNECTION_FLAGS.map((f) => [f, { type: 'string' }])),
  usage: `  --etcd-prefix P            key prefix of the objects in etcd (default /registry)
  --etcd-cafile FILE         CA (PEM) that signed etcd's serving certificate (TLS)
  --etcd-certfile FILE       client certificate (PEM) for etcd, with --etcd-keyfile
  --etcd-keyfile FILE        client key (PEM) for etcd
  --etcd-compaction-interval D
                             compact etcd's history this often, to the revision seen one interval
                             before (a Go duration; default 5m; 0 never compacts); versions older
                             than the last compaction answer 410 Gone
`,
  parse({ values, str, cwd, options }) {
    if (!inEtcd(values)) {
      for (const f of CONNECTION_FLAGS)
        if (values[f] !== undefined) throw new UsageError(`--${f} needs --etcd-servers (or --etcd)`);
      return;
    }
    const prefix = str('etcd-prefix');
    if (prefix !== undefined) {
      if (!prefix.startsWith('/') || prefix.length < 2)
        throw new UsageError('--etcd-prefix: must start with / and name something (e.g. /registry)');
      options.etcdPrefix = prefix;
    }
    for (const [flag, key] of [
      ['etcd-cafile', 'etcdCaFile'],
      ['etcd-certfile', 'etcdCertFile'],
      ['etcd-keyfile', 'etcdKeyFile'],
    ] as const) {
      const f = str(flag);
      if (f === undefined) continue;
      const path = resolve(cwd, f);
      if (!existsSync(path)) throw new UsageError(`--${flag}: ${f} does not exist`);
      options[key] = path;
    }
    if (!!options.etcdCertFile !== !!options.etcdKeyFile)
      throw new UsageError('--etcd-certfile and --etcd-keyfile go together (both or neither)');
    const ci = str('etcd-compaction-interval');
    if (ci !== undefined) options.etcdCompactionIntervalMs = durationFlag('etcd-compaction-interval', ci);
  },
};
