/**
 * How the process map draws: the edge kinds (also the legend's source), the
 * node boxes sized to their labels, the colour ramps and Cytoscape's
 * stylesheet (badges of open cases included).
 */
import type { StylesheetJson } from 'cytoscape';
import { labelText } from './text.js';
import type { GraphNode } from './types.js';

/** The kinds of edge and how the map draws them (also the legend's source). */
export const EDGE_KINDS = {
  normal: { color: '#5b6b82', dash: 'solid', label: 'normal' },
  allowed: { color: '#8fa0b6', dash: 'solid', label: 'allowed' },
  rework: { color: '#e07b00', dash: 'dashed', label: 'rework' },
  skip: { color: '#2a7bd4', dash: 'dotted', label: 'skip' },
  exception: { color: '#c62828', dash: 'dashed', label: 'exception' },
  escalation: { color: '#7b3fb5', dash: 'dashed', label: 'escalation' },
} as const;

const CHAR_PX = 6.6;
const LINE_PX = 15;

/** Whether a label has a word wider than its box's lines: only then may the map break it inside a word. */
export function hasLongWord(label: string, width: number): boolean {
  return label.split(/\s+/).some((w) => w.length * CHAR_PX * 1.15 > width - 14);
}

/** Node boxes fit their label (as drawn: cut, controls shown) wrapped on word breaks (the longest word sets the least width). */
export function nodeBox(n: GraphNode): { width: number; height: number; lines: number } {
  if (n.kind !== 'activity') return { width: 58, height: 58, lines: 2 };
  const label = labelText(n.label);
  const words = label.split(/\s+/).filter(Boolean);
  const longest = Math.max(0, ...words.map((w) => w.length));
  const width = Math.round(Math.min(150, Math.max(88, Math.min(label.length, Math.max(longest, 14)) * CHAR_PX + 20)));
  const perLine = Math.max(1, Math.floor((width - 14) / CHAR_PX));
  let lines = 1;
  let used = 0;
  for (const w of words) {
    const need = used === 0 ? w.length : used + 1 + w.length;
    if (need > perLine && used > 0) {
      lines++;
      used = w.length;
    } else used = need;
    // A word longer than a line is broken over several ('text-overflow-wrap: anywhere'), never drawn past the box.
    while (used > perLine) {
      lines++;
      used -= perLine;
    }
  }
  // One more line for the count or the time under the name.
  return { width, height: 16 + (lines + 1) * LINE_PX, lines: lines + 1 };
}

export function luminance(color: string): number {
  const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(color) ?? /#(..)(..)(..)/.exec(color);
  if (!m) return 1;
  const v = m.slice(1, 4).map((x) => (color.startsWith('#') ? parseInt(x, 16) : Number(x)) / 255);
  return 0.2126 * v[0]! + 0.7152 * v[1]! + 0.0722 * v[2]!;
}

/** Light blue to deep blue by a share 0..1. */
export function blueRamp(t: number): string {
  const a = [232, 240, 251];
  const b = [31, 78, 140];
  const c = a.map((v, i) => Math.round(v + (b[i]! - v) * Math.sqrt(Math.min(1, Math.max(0, t)))));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

export const style: StylesheetJson = [
  {
    selector: 'node',
    style: {
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      'font-size': 12,
    },
  },
  {
    selector: 'node.act',
    style: {
      shape: 'round-rectangle',
      width: 'data(w)',
      height: 'data(h)',
      label: 'data(text)',
      'text-wrap': 'wrap',
      // Lines break between words; only a name with a word longer than the box breaks anywhere (node.act[?longword]).
      'text-max-width': 'data(tw)',
      'text-valign': 'center',
      'text-halign': 'center',
      'background-color': 'data(fill)',
      color: 'data(ink)',
      'border-width': 1,
      'border-color': '#7d8ba0',
      'underlay-color': '#ffb300',
      'underlay-opacity': 0,
      'underlay-padding': 4,
      'underlay-shape': 'round-rectangle',
      'transition-property': 'underlay-opacity, underlay-padding',
      'transition-duration': 350,
    },
  },
  { selector: 'node.act[?longword], node.stage[?longword]', style: { 'text-overflow-wrap': 'anywhere' } },
  {
    selector: 'node.act[repeating > 0]',
    style: { 'border-width': 2, 'border-style': 'double', 'border-color': '#e07b00' },
  },
  {
    selector: 'node.terminal',
    style: {
      shape: 'ellipse',
      width: 58,
      height: 58,
      label: 'data(text)',
      'text-wrap': 'wrap',
      'text-valign': 'center',
      'text-halign': 'center',
      color: '#fff',
      'font-weight': 'bold',
      'border-width': 3,
      'underlay-color': '#ffb300',
      'underlay-opacity': 0,
      'underlay-padding': 4,
      'underlay-shape': 'ellipse',
      'transition-property': 'underlay-opacity, underlay-padding',
      'transition-duration': 350,
    },
  },
  { selector: 'node.start', style: { 'background-color': '#2e9d5b', 'border-color': '#1d6b3c' } },
  { selector: 'node.end', style: { 'background-color': '#1d2330', 'border-color': '#c7ccd6', 'border-style': 'double', 'border-width': 5 } },
  {
    selector: 'node.stage',
    style: {
      shape: 'round-rectangle',
      'background-color': '#eef2f8',
      'background-opacity': 0.65,
      'border-width': 1,
      'border-style': 'dashed',
      'border-color': '#b8c2d2',
      label: 'data(name)',
      'text-wrap': 'wrap',
      'text-max-width': 'data(lw)',
      'text-valign': 'top',
      'text-halign': 'center',
      'text-margin-y': -4,
      color: '#5a6270',
      'font-size': 12,
      'font-weight': 'bold',
      padding: '14px',
    },
  },
  {
    selector: 'edge',
    style: {
      width: 'data(w)',
      'line-color': 'data(color)',
      'target-arrow-color': 'data(color)',
      'target-arrow-shape': 'triangle',
      'arrow-scale': 0.9,
      'curve-style': 'bezier',
      'control-point-step-size': 28,
      label: 'data(text)',
      // 10 CSS px or more at the least legible zoom (map.ts LEGIBLE_ZOOM).
      'font-size': 11,
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      color: '#28303d',
      'text-background-color': '#ffffff',
      'text-background-opacity': 0.85,
      'text-background-padding': '2px',
      'text-rotation': 'none',
      'underlay-color': '#ffb300',
      'underlay-opacity': 0,
      'underlay-padding': 4,
      'loop-direction': '-45deg',
      'loop-sweep': '-60deg',
    },
  },
  { selector: 'edge[kind = "rework"]', style: { 'line-style': 'dashed', 'line-dash-pattern': [7, 4], 'target-arrow-shape': 'vee' } },
  { selector: 'edge[kind = "skip"]', style: { 'line-style': 'dotted' } },
  { selector: 'edge[kind = "exception"]', style: { 'line-style': 'dashed', 'line-dash-pattern': [10, 3, 2, 3] } },
  { selector: 'edge[kind = "escalation"]', style: { 'line-style': 'dashed', 'line-dash-pattern': [14, 4], 'target-arrow-shape': 'triangle-tee' } },
  { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#1565c0', 'border-style': 'solid' } },
  { selector: 'edge:selected', style: { 'underlay-color': '#1565c0', 'underlay-opacity': 0.35, 'underlay-padding': 5 } },
  { selector: '.hl', style: { 'underlay-color': '#ffca28', 'underlay-opacity': 0.75, 'underlay-padding': 6 } },
  { selector: '.dim', style: { opacity: 0.18 } },
  { selector: 'node.pulse', style: { 'underlay-color': '#ff6f00', 'underlay-opacity': 0.8, 'underlay-padding': 10 } },
  { selector: 'node.pulse.dim', style: { 'underlay-opacity': 0.12 } },
];


/** The badge of open cases on a node, and the hand-offs to end no finished case took (every case stopping there is open). */
export const liveStyle: StylesheetJson = [
  {
    selector: 'node.badge',
    style: {
      shape: 'round-rectangle',
      width: 'data(w)',
      height: 18,
      'background-color': 'data(fill)',
      'border-width': 1.5,
      'border-color': '#ffffff',
      label: 'data(text)',
      color: '#ffffff',
      'font-size': 11,
      'font-weight': 'bold',
      'text-valign': 'center',
      'text-halign': 'center',
      'z-compound-depth': 'top',
      'z-index': 20,
      events: 'no',
    },
  },
  { selector: 'edge.unfinished', style: { display: 'none' } },
];
