// The floor of a durable create: a Node HTTP server that does only what any durable create
// must (read and parse the body, stamp the object's server-set metadata, serialise it once,
// append it to a log, the records of a turn in one write(2) at its end, and answer once an
// fdatasync shared by every write of the same turn has returned, at most two in flight, the
// file grown ahead of its records in steps of 1 MiB of zeros, as in the reference's log),
// with none of the API's semantics (no authentication, authorization, admission, validation,
// managedFields, versions or watchers). Its ratio to the bare server is the most a durable
// create can reach on the machine; the reference's CREATE row is read against it.
// Hand-written on purpose: the point is the least work, so no library stands in.
import { randomUUID } from 'node:crypto';
import { fdatasync, openSync, writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';

/** The handler, its log in `dir`. */
export function floorHandler(dir: string): (req: IncomingMessage, res: ServerResponse) => void {
  const path = join(dir, 'floor.log');
  const fd = openSync(path, 'w');
  // as the reference's log, records overwrite zeros written ahead of them: a batch's
  // fdatasync then flushes data and no change of the file's length
  const GROW = 1 << 20;
  const zeros = Buffer.alloc(GROW);
  let size = 0;
  let allocated = 0;
  // as the reference's log: two fdatasyncs in flight at most, each on a descriptor of its own,
  // the second only once 12 writes wait for it
  const free = [openSync(path, 'r'), openSync(path, 'r')];
  let rv = 1;
  let waiting: (() => void)[] = [];
  let records: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    // nothing of a record leaves before this: answers come after an fdatasync, and there are no reads
    if (records.length) {
      const text = Buffer.from(records.join(''));
      for (; allocated < size + text.length; allocated += GROW) writeSync(fd, zeros, 0, GROW, allocated);
      size += writeSync(fd, text, 0, text.length, size);
    }
    records = [];
    if (!free.length || !waiting.length || (free.length < 2 && waiting.length < 12)) return;
    const batch = waiting;
    waiting = [];
    const syncFd = free.pop()!;
    fdatasync(syncFd, (err) => {
      if (err) throw err;
      free.push(syncFd);
      for (const done of batch) done();
      if (waiting.length) schedule();
    });
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const obj = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const m = (obj.metadata ??= {});
      m.namespace = 'create';
      m.uid = randomUUID();
      m.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      m.resourceVersion = String(++rv);
      const json = JSON.stringify(obj);
      records.push(`{"r":${rv},"o":${json}}\n`);
      waiting.push(() => {
        const body = Buffer.from(json);
        res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        res.end(body);
      });
      schedule();
    });
  };
}
