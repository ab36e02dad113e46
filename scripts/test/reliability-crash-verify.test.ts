// The checks of the crash measurement (scripts/reliability/crash/verify.ts) on made-up
// records: a clean history passes, and a lost write, a version that goes back and a watch
// that misses or repeats a change are each flagged (the checks can fail).
import { describe, expect, it } from 'vitest';
import {
  type ObjectState,
  verifyObjects,
  verifyVersions,
  verifyWatcher,
  type WatcherLog,
  type WriteOp,
} from '../reliability/crash/verify.ts';

const data = (seq: number) => ({ writer: '0', seq: String(seq) });
let clock = 0;
/** A write of writer 0 that took 1 ms, after the previous one. */
function op(
  seq: number,
  name: string,
  kind: WriteOp['kind'],
  outcome: WriteOp['outcome'],
  rv?: string,
  epoch = 0,
): WriteOp {
  clock += 2;
  return {
    writer: 0,
    seq,
    name,
    kind,
    data: kind === 'delete' ? undefined : data(seq),
    start: clock,
    end: clock + 1,
    outcome,
    rv,
    epoch,
  };
}
const obj = (name: string, rv: string, seq: number): ObjectState => ({ name, rv, data: data(seq) });
const kinds = (fs: { kind: string }[]) => fs.map((f) => f.kind);

describe('crash verifier: objects', () => {
  const history = () => [
    op(1, 'a', 'create', 'acked', '10'),
    op(2, 'a', 'update', 'acked', '12'),
    op(3, 'b', 'create', 'acked', '13'),
    op(4, 'b', 'delete', 'acked'),
    op(5, 'a', 'update', 'uncertain'),
  ];

  it('accepts the acknowledged state, and an in-flight write applied intact', () => {
    expect(verifyObjects(new Map(), history(), [obj('a', '12', 2)])).toEqual([]);
    expect(verifyObjects(new Map(), history(), [obj('a', '15', 5)])).toEqual([]);
  });

  it('flags an acknowledged update that is gone (the object went back to an older write)', () => {
    const f = verifyObjects(new Map(), history(), [obj('a', '10', 1)]);
    expect(kinds(f)).toEqual(['lost']);
    expect(f[0]!.name).toBe('a');
  });

  it('flags an acknowledged create whose object is missing', () => {
    expect(kinds(verifyObjects(new Map(), history(), []))).toEqual(['lost']);
  });

  it('flags an acknowledged delete whose object is back, and an object nobody wrote', () => {
    const f = verifyObjects(new Map(), history(), [obj('a', '12', 2), obj('b', '13', 3), obj('zz', '3', 9)]);
    expect(kinds(f).sort()).toEqual(['phantom', 'resurrected']);
  });

  it('flags an object whose data is not what the acknowledged write sent', () => {
    const f = verifyObjects(new Map(), history(), [
      { name: 'a', rv: '12', data: { writer: '0', seq: '2', x: 'y' } },
    ]);
    expect(kinds(f)).toEqual(['corrupt']);
  });

  it('keeps the baseline of names no write touched', () => {
    const base = new Map([['c', obj('c', '5', 0)]]);
    expect(kinds(verifyObjects(base, [], []))).toEqual(['lost']);
    expect(verifyObjects(base, [], [obj('c', '5', 0)])).toEqual([]);
  });
});

describe('crash verifier: resource versions', () => {
  const list = (rv: string, objects: ObjectState[] = []) => ({ rv, objects });

  it('accepts versions that only grow', () => {
    const ops = [
      op(1, 'a', 'create', 'acked', '10'),
      op(2, 'a', 'update', 'acked', '11'),
      op(3, 'a', 'update', 'acked', '20', 1),
    ];
    expect(verifyVersions(ops, list('20', [obj('a', '20', 3)]))).toEqual([]);
  });

  it('flags a first write after the fault whose version is not above the ones before', () => {
    const ops = [
      op(1, 'a', 'create', 'acked', '10'),
      op(2, 'a', 'update', 'acked', '11'),
      op(3, 'a', 'update', 'acked', '9', 1),
    ];
    const f = verifyVersions(ops, list('11'));
    expect(kinds(f)).toEqual(['rv-regression']);
    expect(f[0]!.detail).toContain('first write after the fault got rv 9');
  });

  it('compares as integers, not as strings ("9" < "10")', () => {
    const ops = [op(1, 'a', 'create', 'acked', '9'), op(2, 'a', 'update', 'acked', '10', 1)];
    expect(verifyVersions(ops, list('10'))).toEqual([]);
  });

  it('flags a write that began after an answer and got a smaller version, and a list older than an answer', () => {
    const ops = [op(1, 'a', 'create', 'acked', '30'), op(2, 'b', 'create', 'acked', '25')];
    expect(kinds(verifyVersions(ops, list('30')))).toEqual(['rv-regression']);
    expect(kinds(verifyVersions([op(3, 'a', 'create', 'acked', '30')], list('29')))).toEqual([
      'rv-regression',
    ]);
  });

  it('flags a version that is not an integer', () => {
    expect(kinds(verifyVersions([op(1, 'a', 'create', 'acked', 'abc')], list('3')))).toEqual(['bad-rv']);
  });
});

describe('crash verifier: watchers', () => {
  const ops = [
    op(1, 'a', 'create', 'acked', '11'),
    op(2, 'a', 'update', 'acked', '12'),
    op(3, 'a', 'delete', 'acked'),
  ];
  const start = { rv: '10', objects: [] };
  const final: ObjectState[] = [];
  const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', rv: string) => ({ type, name: 'a', rv });

  it('counts a resumed watch that saw every change once, in order', () => {
    const log: WatcherLog = {
      id: 0,
      segments: [
        { from: '10', status: 200, outcome: 'error', events: [ev('ADDED', '11')] },
        { from: '11', outcome: 'error', events: [] },
        { from: '11', status: 200, outcome: 'ended', events: [ev('MODIFIED', '12'), ev('DELETED', '13')] },
      ],
    };
    expect(verifyWatcher(log, start, final, ops)).toEqual({ findings: [], resumed: 1, gone: 0 });
  });

  it('flags a missed change and a repeated one', () => {
    const gap: WatcherLog = {
      id: 0,
      segments: [
        { from: '10', status: 200, outcome: 'error', events: [ev('ADDED', '11')] },
        { from: '11', status: 200, outcome: 'ended', events: [ev('DELETED', '13')] },
      ],
    };
    expect(kinds(verifyWatcher(gap, start, final, ops).findings)).toContain('watch-gap');
    const dup: WatcherLog = {
      id: 0,
      segments: [
        {
          from: '10',
          status: 200,
          outcome: 'ended',
          events: [ev('ADDED', '11'), ev('ADDED', '11'), ev('MODIFIED', '12'), ev('DELETED', '13')],
        },
      ],
    };
    expect(kinds(verifyWatcher(dup, start, final, ops).findings)).toEqual(['watch-duplicate']);
  });

  it('counts a 410 and checks the watch after the new list', () => {
    const log: WatcherLog = {
      id: 0,
      segments: [
        { from: '10', status: 200, outcome: 'error', events: [ev('ADDED', '11')] },
        { from: '11', status: 410, outcome: 'gone', events: [] },
        {
          from: '12',
          relist: { rv: '12', objects: [obj('a', '12', 2)] },
          status: 200,
          outcome: 'ended',
          events: [ev('DELETED', '13')],
        },
      ],
    };
    expect(verifyWatcher(log, start, final, ops)).toEqual({ findings: [], resumed: 0, gone: 1 });
    // the same watch ending without the delete is a gap
    log.segments[2]!.events = [];
    expect(kinds(verifyWatcher(log, start, final, ops).findings)).toEqual(['watch-gap']);
  });
});
