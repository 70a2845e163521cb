/** The process simulator: deterministic logs from built-in models with known ground truth. */
import type { Writable } from 'node:stream';
import { createSimulation, type SimulateOptions } from './simulation.js';
import { writeLog, type LogFormat, type WriteResult } from './writers.js';

export { modelNames } from './models/index.js';
export { simulate, createSimulation, Simulation, DEFAULT_START, DEFAULT_OPEN_SHARE, type SimulateOptions, type SimulationConfig } from './simulation.js';
export { groundTruth, type GroundTruth } from './truth.js';
export { writeLog, logFormats, type LogFormat, type WriteOptions, type WriteResult } from './writers.js';
export { liveFeed, type LiveFeedOptions } from './live.js';
export { follows } from './model.js';
export type {
  AttributeSpec,
  AttributeType,
  BackboneTruth,
  DecisionRule,
  DecisionTruth,
  EscalationTruth,
  ExceptionTruth,
  OptionalTruth,
  ParallelTruth,
  RepeatTruth,
  ReworkTruth,
  RoleTruth,
  SeparationTruth,
} from './model.js';

/** Simulates a log straight into a file or stream, with the model's columns and types and per-case XES flushing. */
export function writeSimulation(options: SimulateOptions, format: LogFormat, out: Writable | string): Promise<WriteResult> {
  const simulation = createSimulation(options);
  return writeLog(simulation.events(), format, out, simulation.writeOptions());
}
