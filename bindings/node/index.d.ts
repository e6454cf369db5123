// Types of kiln-sandbox, written by hand (npm test compiles test/fixtures/usage.ts against them).
/// <reference types="node" />

/** Plain data that crosses between the host and the guest, by copy. */
export type Value =
  | undefined
  | null
  | boolean
  | number
  | string
  | bigint
  | Date
  | Uint8Array
  | Value[]
  | { [key: string]: Value };

/** Budgets for one execution. Every one is bounded by default (see README). */
export interface Limits {
  /** fuel: about one unit per bytecode instruction (default 200,000,000) */
  fuel?: number;
  /** heap bytes (default 64 MiB) */
  heapBytes?: number;
  /** JavaScript call depth (default 1,000) */
  callDepth?: number;
  /** guest compute time in milliseconds, time waiting for the host not counted (default 5,000) */
  computeMs?: number;
  /** host capability calls in all (default 1,000) */
  hostCalls?: number;
}

/** Where console lines of the guest go; a missing level falls back to `log`. */
export interface ConsoleSink {
  log?(line: string): void;
  info?(line: string): void;
  debug?(line: string): void;
  warn?(line: string): void;
  error?(line: string): void;
}

/** A host function the guest may call; its arguments and result cross by copy. */
export type HostFunction = (...args: any[]) => unknown;

/** Host functions by name; nested objects and dotted names make namespaces (`tools.search`). */
export interface Capabilities {
  [name: string]: HostFunction | Capabilities;
}

interface CommonOptions {
  limits?: Limits;
  /** freeze the intrinsics and provide `harden` (default false) */
  hardened?: boolean;
  /** let `eval` and `Function` compile strings (default false) */
  allowEval?: boolean;
  /** the guest's console; without it the guest has no `console` */
  console?: ConsoleSink;
  /** 'thread' (default): in this process; 'process': in a pool of kiln-worker processes */
  isolation?: 'thread' | 'process';
}

interface SourceOptions extends CommonOptions {
  /** globals the guest sees, each a fresh copy */
  inputs?: Record<string, Value>;
  /** the script's name in stack traces; a `.ts`, `.mts` or `.cts` name makes it TypeScript */
  filename?: string;
  /** the source is TypeScript (the default filename becomes `agent.ts`) */
  typescript?: boolean;
}

export interface RunOptions extends SourceOptions {
  capabilities?: Capabilities;
  /** cancels the run, even a guest in an endless loop */
  signal?: AbortSignal;
}

export interface StartOptions extends SourceOptions {
  /** capability names; each call suspends the execution until the host answers it */
  capabilities?: string[];
}

/** Snapshot ids already loaded, for replay protection across processes. */
export interface SnapshotStore {
  has(id: string): boolean | Promise<boolean>;
  add(id: string): unknown;
}

export interface LoadOptions extends CommonOptions {
  /** the key the snapshot was dumped with */
  key?: string | Uint8Array;
  /** the capability names, registered again */
  capabilities?: string[];
  /** where loaded snapshot ids are kept (default: a set in this process) */
  snapshots?: SnapshotStore;
}

/** A call of a capability, waiting for the host's answer. */
export interface HostCall {
  id: number;
  capability: string;
  args: Value[];
}

export type ErrorKind =
  | 'Syntax'
  | 'Exception'
  | 'OutOfFuel'
  | 'HeapLimit'
  | 'CallDepth'
  | 'ComputeTime'
  | 'HostCalls'
  | 'Cancelled'
  | 'Boundary'
  | 'Snapshot'
  | 'Stalled'
  | 'Host'
  | 'Engine';

export declare const KINDS: readonly ErrorKind[];

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
  sourceLine: string;
}

/** An execution that ended without a result, or a value or snapshot that was refused. */
export declare class KilnError extends Error {
  readonly name: 'KilnError';
  readonly kind: ErrorKind;
  /** the guest exception's name (`TypeError`), or the kind */
  readonly guestName: string;
  /** the guest exception's message, or what went wrong */
  readonly guestMessage: string;
  /** the guest's stack, with line:column of each frame */
  readonly guestStack: string;
  /** where the guest threw */
  readonly location?: SourceLocation;
}

/**
 * Run `source` as an agent script (top-level `await`; its result is what it returns, or
 * its last expression) and resolve with the result.
 */
export declare function run(source: string, options?: RunOptions): Promise<Value>;

/** Where an execution driven by hand stands. */
export declare class Progress {
  readonly status: 'suspended' | 'complete';
  /** the outstanding calls (empty when complete) */
  readonly calls: HostCall[];
  /** the result, when complete */
  readonly value: Value;
  /** answer call `id` and continue; resolves with the next Progress */
  resume(id: number, value: Value): Promise<Progress>;
  /** answer call `id` with an error the guest can catch, and continue */
  resumeError(id: number, error: unknown): Promise<Progress>;
  /** end the execution; a resume or dump still running rejects with kind Cancelled */
  cancel(): void;
  /** the suspended execution as bytes (authenticated with `key`) */
  dump(options?: { key?: string | Uint8Array }): Promise<Buffer>;
  /** continue from snapshot bytes, in this or another process; each snapshot resumes once */
  static load(bytes: Uint8Array, options?: LoadOptions): Promise<Progress>;
}

export declare function start(source: string, options?: StartOptions): Promise<Progress>;

export interface ExecuteResult {
  result: unknown;
  error?: string;
  kind?: ErrorKind | 'Host';
  logs: string[];
}

/** The codemode executor: tools as `codemode.*`, never throws. */
export declare class Executor {
  constructor(options?: RunOptions & { namespace?: string });
  execute(code: string, fns?: Record<string, HostFunction>): Promise<ExecuteResult>;
}
