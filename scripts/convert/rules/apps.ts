// DaemonSet, Deployment, StatefulSet, ReplicaSet to apps/v1 (doc2: the selector is required and
// immutable; removed fields; changed defaults). Where an older version's default differs from
// apps/v1's, the old default is written out so the workload behaves as before, and a note says so.
import type { Obj, Rule } from '../types.ts';

const EXT = 'extensions/v1beta1';

function selectorFromTemplate(o: Obj, notes: string[]): void {
  if (o.spec?.selector) return;
  const labels = o.spec?.template?.metadata?.labels;
  if (labels && Object.keys(labels).length) {
    o.spec.selector = { matchLabels: { ...labels } };
    notes.push(
      'spec.selector: was unset; set to the pod template labels (the old default); apps/v1 requires it and never lets it change',
    );
  } else
    notes.push(
      'spec.selector: unset and the pod template has no labels: apps/v1 requires a selector; add one',
    );
}

function drop(o: Obj, field: string, why: string, notes: string[]): void {
  if (o.spec && field in o.spec) {
    delete o.spec[field];
    notes.push(`spec.${field}: removed (${why})`);
  }
}

function keepDefault(o: Obj, path: string[], value: unknown, notes: string[], why: string): void {
  let cur = o;
  for (const p of path.slice(0, -1)) cur = cur[p] ??= {};
  const last = path[path.length - 1]!;
  if (cur[last] === undefined) {
    cur[last] = value;
    notes.push(`${path.join('.')}: set to ${JSON.stringify(value)}, the default of the old version (${why})`);
  }
}

export const appsRules: Rule[] = [
  {
    kinds: ['DaemonSet'],
    from: [EXT, 'apps/v1beta2'],
    to: 'apps/v1',
    convert: (o, from, notes) => {
      o.spec ??= {};
      selectorFromTemplate(o, notes);
      drop(o, 'templateGeneration', 'apps/v1 has no such field', notes);
      if (from === EXT)
        keepDefault(
          o,
          ['spec', 'updateStrategy', 'type'],
          'OnDelete',
          notes,
          'apps/v1 defaults to RollingUpdate',
        );
      return o;
    },
  },
  {
    kinds: ['Deployment'],
    from: [EXT, 'apps/v1beta1', 'apps/v1beta2'],
    to: 'apps/v1',
    convert: (o, from, notes) => {
      o.spec ??= {};
      selectorFromTemplate(o, notes);
      drop(o, 'rollbackTo', 'apps/v1 has no rollback field; use `rollout undo`', notes);
      const rolling = (o.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
      if (from === EXT) {
        keepDefault(
          o,
          ['spec', 'revisionHistoryLimit'],
          2147483647,
          notes,
          'apps/v1 keeps 10 old replica sets',
        );
        keepDefault(
          o,
          ['spec', 'progressDeadlineSeconds'],
          2147483647,
          notes,
          'apps/v1 reports no progress after 600 s',
        );
        if (rolling) {
          keepDefault(
            o,
            ['spec', 'strategy', 'rollingUpdate', 'maxSurge'],
            1,
            notes,
            'apps/v1 defaults to 25%',
          );
          keepDefault(
            o,
            ['spec', 'strategy', 'rollingUpdate', 'maxUnavailable'],
            1,
            notes,
            'apps/v1 defaults to 25%',
          );
        }
      } else if (from === 'apps/v1beta1')
        keepDefault(o, ['spec', 'revisionHistoryLimit'], 2, notes, 'apps/v1 keeps 10 old replica sets');
      return o;
    },
  },
  {
    kinds: ['StatefulSet'],
    from: ['apps/v1beta1', 'apps/v1beta2'],
    to: 'apps/v1',
    convert: (o, from, notes) => {
      o.spec ??= {};
      selectorFromTemplate(o, notes);
      if (from === 'apps/v1beta1')
        keepDefault(
          o,
          ['spec', 'updateStrategy', 'type'],
          'OnDelete',
          notes,
          'apps/v1 defaults to RollingUpdate',
        );
      return o;
    },
  },
  {
    kinds: ['ReplicaSet'],
    from: [EXT, 'apps/v1beta2'],
    to: 'apps/v1',
    convert: (o, _from, notes) => {
      o.spec ??= {};
      selectorFromTemplate(o, notes);
      return o;
    },
  },
];
