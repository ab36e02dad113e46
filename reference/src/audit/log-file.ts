// The audit log file (`--audit-log-path`) with Kubernetes 1.28's rotation (its log backend
// writes through lumberjack): when a write would take the file past `--audit-log-maxsize`
// megabytes (100 when 0), the file is renamed `<name>-<UTC time 2006-01-02T15-04-05.000><ext>`
// and a new one started; then backups beyond `--audit-log-maxbackup` (newest kept) and older
// than `--audit-log-maxage` days (by the time in their name) are removed, and the others
// gzipped to `<backup>.gz` with `--audit-log-compress`. 0 keeps every backup.
//
// Lines are buffered: a request only queues its line; they are written together, in order,
// once the event loop turns (one write per batch), so the log never slows a request down.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { type FileHandle, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface RotationOptions {
  /** Megabytes before the file is rotated (0: 100, as lumberjack). */
  maxSizeMB?: number;
  /** Backups kept (0: all). */
  maxBackups?: number;
  /** Days a backup is kept, by the time in its name (0: forever). */
  maxAgeDays?: number;
  /** Gzip backups. */
  compress?: boolean;
  /** Bytes in a megabyte (tests make it small). */
  megabyte?: number;
  now?: () => Date;
}

const DEFAULT_MAX_MB = 100;
const COMPRESS_SUFFIX = '.gz';
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** lumberjack's backup time: `2006-01-02T15-04-05.000`, UTC. */
export function backupTime(d: Date): string {
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}-${pad(d.getUTCMinutes())}-${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
  );
}

const BACKUP_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

function parseBackupTime(s: string): number | undefined {
  const m = BACKUP_TIME.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, se, ms] = m.map(Number) as number[];
  const t = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!, ms!);
  return Number.isNaN(t) ? undefined : t;
}

/** The name a backup of `path` rotated at `at` gets: `audit.log` -> `audit-2026-11-24T23-11-00.000.log`. */
export function backupName(path: string, at: Date): string {
  const file = basename(path);
  const ext = extname(file);
  return join(dirname(path), `${file.slice(0, file.length - ext.length)}-${backupTime(at)}${ext}`);
}

export class RotatingFile {
  private readonly max: number;
  private readonly now: () => Date;
  private fh?: FileHandle;
  private size = 0;
  private pending: string[] = [];
  private draining?: Promise<void>;
  private milling: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly path: string,
    private readonly o: RotationOptions = {},
  ) {
    this.max = (o.maxSizeMB || DEFAULT_MAX_MB) * (o.megabyte ?? 1024 * 1024);
    this.now = o.now ?? (() => new Date());
    // the file exists from the start (readers note where it ends); a path that cannot be
    // written is refused now, not at the first request
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }

  /** Queues a line (its newline included). */
  write(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    this.draining ??= new Promise<void>((r) => setImmediate(r)).then(() => this.drain());
  }

  /** Writes what is queued and closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    await this.fh?.close().catch(() => {});
    this.fh = undefined;
    await this.milling;
  }

  /** Resolves once every line queued so far is written (and rotations' clean-ups are done). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
    await this.milling;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length) {
        const lines = this.pending;
        this.pending = [];
        await this.writeLines(lines);
      }
    } catch (e) {
      console.error(`audit log ${this.path}:`, (e as Error).message);
    } finally {
      this.draining = undefined;
    }
  }

  private async writeLines(lines: string[]): Promise<void> {
    if (!this.fh) await this.openExisting();
    let chunk: string[] = [];
    let bytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (n > this.max) {
        console.error(`audit log ${this.path}: write length ${n} exceeds maximum file size ${this.max}`);
        continue;
      }
      if (this.size + bytes + n > this.max) {
        await this.append(chunk, bytes);
        chunk = [];
        bytes = 0;
        await this.rotate();
      }
      chunk.push(line);
      bytes += n;
    }
    await this.append(chunk, bytes);
  }

  private async append(chunk: string[], bytes: number): Promise<void> {
    if (!chunk.length) return;
    await this.fh!.write(chunk.length === 1 ? chunk[0]! : chunk.join(''));
    this.size += bytes;
  }

  private async openExisting(): Promise<void> {
    this.fh = await open(this.path, 'a', 0o600);
    this.size = (await this.fh.stat()).size;
    this.mill();
  }

  private async rotate(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
    let mode = 0o600;
    try {
      mode = (await stat(this.path)).mode & 0o777;
      let at = this.now();
      // two rotations within a millisecond would give one name: the second waits for the next
      while (await exists(backupName(this.path, at))) {
        await new Promise((r) => setTimeout(r, 1));
        at = this.now();
      }
      await rename(this.path, backupName(this.path, at));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    this.fh = await open(this.path, 'w', mode);
    this.size = 0;
    this.mill();
  }

  /** Removes and compresses backups, one clean-up after another. */
  private mill(): void {
    const { maxBackups = 0, maxAgeDays = 0, compress = false } = this.o;
    if (!maxBackups && !maxAgeDays && !compress) return;
    this.milling = this.milling
      .then(() => this.millOnce(maxBackups, maxAgeDays, compress))
      .catch((e) => console.error(`audit log ${this.path}: cleaning up backups:`, (e as Error).message));
  }

  private async millOnce(maxBackups: number, maxAgeDays: number, compress: boolean): Promise<void> {
    const dir = dirname(this.path);
    const file = basename(this.path);
    const ext = extname(file);
    const prefix = `${file.slice(0, file.length - ext.length)}-`;
    const backups: { name: string; time: number }[] = [];
    for (const name of await readdir(dir)) {
      if (!name.startsWith(prefix)) continue;
      for (const suffix of [ext, ext + COMPRESS_SUFFIX]) {
        if (!name.endsWith(suffix) || name.length < prefix.length + suffix.length) continue;
        const time = parseBackupTime(name.slice(prefix.length, name.length - suffix.length));
        if (time !== undefined) {
          backups.push({ name, time });
          break;
        }
      }
    }
    backups.sort((a, b) => b.time - a.time);
    let keep = backups;
    const remove: string[] = [];
    if (maxBackups > 0 && maxBackups < keep.length) {
      // a backup and its compressed form count once
      const seen = new Set<string>();
      const kept: typeof backups = [];
      for (const b of keep) {
        seen.add(b.name.endsWith(COMPRESS_SUFFIX) ? b.name.slice(0, -COMPRESS_SUFFIX.length) : b.name);
        if (seen.size > maxBackups) remove.push(b.name);
        else kept.push(b);
      }
      keep = kept;
    }
    if (maxAgeDays > 0) {
      const cutoff = this.now().getTime() - maxAgeDays * 24 * 3600 * 1000;
      for (const b of keep) if (b.time < cutoff) remove.push(b.name);
      keep = keep.filter((b) => b.time >= cutoff);
    }
    for (const name of remove) await unlink(join(dir, name)).catch(() => {});
    if (compress)
      for (const b of keep) {
        if (b.name.endsWith(COMPRESS_SUFFIX)) continue;
        const src = join(dir, b.name);
        const mode = (await stat(src)).mode & 0o777;
        try {
          await pipeline(
            createReadStream(src),
            createGzip(),
            createWriteStream(src + COMPRESS_SUFFIX, { mode }),
          );
          await unlink(src);
        } catch (e) {
          await unlink(src + COMPRESS_SUFFIX).catch(() => {});
          throw e;
        }
      }
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}
