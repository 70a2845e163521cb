/**
 * Left-to-right layout with ELK's layered algorithm (elkjs, run in the page:
 * the bundled build needs no worker file). Stages are ELK partitions, so
 * every stage's activities sit in a band of layers after the previous
 * stage's; start is the first partition, end the last. Nodes are handed over
 * in the stages' order, which ELK's model-order cycle breaking uses to choose
 * the backward edges (rework) the way the process reads.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
  partition: number;
}
export interface LayoutEdge {
  id: string;
  from: string;
  to: string;
}
import type { Layout, Point } from './layout-types.js';

export type { Layout, Point };

const elk = new ELK();

export async function layout(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[]): Promise<Layout> {
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.partitioning.activate': 'true',
      'elk.edgeRouting': 'POLYLINE',
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.spacing.nodeNodeBetweenLayers': '46',
      'elk.spacing.nodeNode': '26',
      'elk.spacing.edgeNode': '14',
      'elk.layered.spacing.edgeNodeBetweenLayers': '14',
      'elk.padding': '[top=40,left=30,bottom=30,right=30]',
    },
    children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height, layoutOptions: { 'elk.partitioning.partition': String(n.partition) } })),
    edges: edges.map((e): ElkExtendedEdge => ({ id: e.id, sources: [e.from], targets: [e.to] })),
  };
  const out = await elk.layout(graph);
  const positions = new Map<string, Point>();
  for (const c of out.children ?? []) positions.set(c.id, { x: (c.x ?? 0) + (c.width ?? 0) / 2, y: (c.y ?? 0) + (c.height ?? 0) / 2 });
  const bends = new Map<string, Point[]>();
  for (const e of (out.edges ?? []) as ElkExtendedEdge[]) {
    const points = (e.sections ?? []).flatMap((s) => s.bendPoints ?? []);
    if (points.length) bends.set(e.id, points.map((p) => ({ x: p.x, y: p.y })));
  }
  return { positions, bends };
}

/**
 * Bend points as Cytoscape's segment weights and distances: each point as a
 * share along the line between the two node centres and a distance off it
 * (Cytoscape's normal is the line's direction turned a quarter to the left).
 */
export function segments(source: Point, target: Point, points: readonly Point[]): { weights: number[]; distances: number[] } | undefined {
  const vx = target.x - source.x;
  const vy = target.y - source.y;
  const l2 = vx * vx + vy * vy;
  if (!points.length || l2 < 1) return undefined;
  const l = Math.sqrt(l2);
  const nx = -vy / l;
  const ny = vx / l;
  const weights: number[] = [];
  const distances: number[] = [];
  for (const p of points) {
    const dx = p.x - source.x;
    const dy = p.y - source.y;
    weights.push((dx * vx + dy * vy) / l2);
    distances.push(dx * nx + dy * ny);
  }
  return { weights, distances };
}
