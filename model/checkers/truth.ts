/**
 * Checkers measure against the world's allocator, never the tier's own arithmetic.
 */
export { deviceFootprint as allocFootprintTruth } from '../sim_engine/allocator.js';
