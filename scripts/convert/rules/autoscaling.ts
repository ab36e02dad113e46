// HorizontalPodAutoscaler: autoscaling/v2beta1 and v2beta2 to autoscaling/v2. v2beta2 has v2's
// shape; v2beta1's metric sources name their target in flat fields (`targetAverageUtilization`,
// `targetAverageValue`, `targetValue`, `metricName`, `metricSelector`), which v2 nests under
// `metric` and `target`.
import type { Obj, Rule } from '../types.ts';

function target(src: Obj): Obj | undefined {
  if (src.targetAverageUtilization !== undefined)
    return { type: 'Utilization', averageUtilization: src.targetAverageUtilization };
  if (src.targetAverageValue !== undefined)
    return { type: 'AverageValue', averageValue: src.targetAverageValue };
  if (src.targetValue !== undefined) return { type: 'Value', value: src.targetValue };
  return undefined;
}

function metricIdentifier(src: Obj): Obj {
  const m: Obj = { name: src.metricName };
  if (src.metricSelector ?? src.selector) m.selector = src.metricSelector ?? src.selector;
  return m;
}

function v2beta1Metric(m: Obj, notes: string[]): Obj {
  switch (m.type) {
    case 'Resource':
      return { type: 'Resource', resource: { name: m.resource?.name, target: target(m.resource ?? {}) } };
    case 'ContainerResource':
      return {
        type: 'ContainerResource',
        containerResource: {
          name: m.containerResource?.name,
          container: m.containerResource?.container,
          target: target(m.containerResource ?? {}),
        },
      };
    case 'Pods':
      return { type: 'Pods', pods: { metric: metricIdentifier(m.pods ?? {}), target: target(m.pods ?? {}) } };
    case 'Object': {
      const s = m.object ?? {};
      return {
        type: 'Object',
        object: { describedObject: s.target, metric: metricIdentifier(s), target: target(s) },
      };
    }
    case 'External': {
      const s = m.external ?? {};
      return { type: 'External', external: { metric: metricIdentifier(s), target: target(s) } };
    }
    default:
      notes.push(`spec.metrics: metric type ${JSON.stringify(m.type)} is unknown and was kept as written`);
      return m;
  }
}

export const autoscalingRules: Rule[] = [
  {
    kinds: ['HorizontalPodAutoscaler'],
    from: ['autoscaling/v2beta1', 'autoscaling/v2beta2'],
    to: 'autoscaling/v2',
    convert: (o, from, notes) => {
      if (from === 'autoscaling/v2beta1' && Array.isArray(o.spec?.metrics))
        o.spec.metrics = o.spec.metrics.map((m: Obj) => v2beta1Metric(m, notes));
      if (o.status) {
        delete o.status;
        notes.push('status: dropped (the server computes it)');
      }
      return o;
    },
  },
];
