// Typed reads from untrusted JSON with messages that name the field path.
// Invariant: every reader either returns a value of the promised type or throws a
// FixtureError naming the file and the JSON path ("shape.hidden", "tensors[3].offset").

import { FixtureError } from "./fixture_error.js";

export type JsonObject = { readonly [key: string]: unknown };

export class JsonReader {
  constructor(readonly file: string) {}

  fail(path: string, problem: string): never {
    throw new FixtureError(this.file, path === "" ? problem : `${path}: ${problem}`);
  }

  object(value: unknown, path: string, keys: readonly string[]): JsonObject {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.fail(path, `expected an object, got ${describe(value)}`);
    }
    const obj = value as JsonObject;
    for (const k of keys) if (!(k in obj)) this.fail(path, `missing key "${k}"`);
    for (const k of Object.keys(obj)) {
      if (!keys.includes(k)) this.fail(path, `unknown key "${k}"`);
    }
    return obj;
  }

  array(value: unknown, path: string): readonly unknown[] {
    if (!Array.isArray(value)) this.fail(path, `expected an array, got ${describe(value)}`);
    return value as readonly unknown[];
  }

  string(value: unknown, path: string): string {
    if (typeof value !== "string") this.fail(path, `expected a string, got ${describe(value)}`);
    return value as string;
  }

  /** A finite number. */
  number(value: unknown, path: string): number {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      this.fail(path, `expected a finite number, got ${describe(value)}`);
    }
    return value as number;
  }

  /** An integer in [min, max]. */
  int(value: unknown, path: string, min: number, max: number): number {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      this.fail(path, `expected an integer, got ${describe(value)}`);
    }
    const n = value as number;
    if (n < min || n > max) this.fail(path, `${n} is out of range [${min}, ${max}]`);
    return n;
  }

  intArray(value: unknown, path: string, min: number, max: number): number[] {
    return this.array(value, path).map((v, i) => this.int(v, `${path}[${i}]`, min, max));
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number") return String(value);
  return typeof value;
}
