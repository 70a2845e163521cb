import { EngineError } from '../../../engine/index.js';
import type { ModelSpec } from '../model.js';
import { claims } from './claims.js';
import { freight } from './freight.js';
import { helpdesk } from './helpdesk.js';
import { orderToCash } from './order-to-cash.js';
import { patientCare } from './patient-care.js';

const models: readonly ModelSpec[] = [orderToCash, claims, helpdesk, patientCare, freight];

export function modelNames(): string[] {
  return models.map((m) => m.name);
}

export function modelSpec(name: string): ModelSpec {
  const found = models.find((m) => m.name === name);
  if (!found) throw new EngineError('invalid_argument', `unknown simulator model '${name}' (known: ${modelNames().join(', ')})`);
  return found;
}
