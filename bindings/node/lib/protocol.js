'use strict';
// The session protocol's messages as bytes: the JavaScript side of
// crates/kiln_bridge/src/protocol.rs (both must change together).

const { Writer, Reader, BoundaryRefusal } = require('./codec');

// commands
const START = 1;
const LOAD = 2;
const REPLY = 3;
const ANSWER = 4;
const DUMP = 5;
const ANSWERS = 8;

// events
const CALL = 1;
const CONSOLE = 2;
const SUSPENDED = 3;
const COMPLETE = 4;
const FAILED = 5;
const DUMPED = 6;
const CLOSED = 7;

// reply kinds
const RETURN = 0;
const THROW = 1;
const DEFER = 2;

const LEVELS = ['log', 'info', 'debug', 'warn', 'error'];

/** The bytes `write` writes; its writer is given back even when a value is refused. */
function message(write) {
  const w = new Writer();
  try {
    write(w);
    return w.take();
  } finally {
    w.release();
  }
}

/** Writes the settings of an execution (limits are whole numbers or -1 for the default). */
function writeSettings(w, s) {
  const l = s.limits;
  for (const v of [l.fuel, l.heapBytes, l.callDepth, l.computeMs, l.hostCalls]) {
    w.f64(v === undefined ? -1 : v);
  }
  w.u8((s.hardened ? 1 : 0) | (s.allowEval ? 2 : 0) | (s.console ? 4 : 0) | (s.bigint ? 8 : 0) | (s.date ? 16 : 0));
}

function writeCapabilities(w, capabilities) {
  w.u32(capabilities.length);
  for (const c of capabilities) {
    w.str(c.name);
    w.u8(c.async ? 1 : 0);
  }
}

/** A host error as the guest will see it: name, message, optional code and details. */
function writeHostError(w, e) {
  w.str(e.name);
  w.str(e.message);
  if (e.code === undefined) {
    w.u8(0);
  } else {
    w.u8(1);
    w.str(e.code);
  }
  if (e.details === undefined) {
    w.u8(0);
  } else {
    w.u8(1);
    w.value(e.details);
  }
}

function optBlob(w, bytes) {
  if (bytes === undefined) {
    w.u8(0);
  } else {
    w.u8(1);
    w.blob(bytes);
  }
}

/**
 * `inputs` is a list of [name, value]; a refused value throws a BoundaryRefusal whose
 * path starts at the input's name.
 */
function start(source, filename, settings, capabilities, inputs) {
  return message((w) => {
    w.u8(START);
    w.str(source);
    w.str(filename);
    writeSettings(w, settings);
    writeCapabilities(w, capabilities);
    w.u32(inputs.length);
    for (const [name, value] of inputs) {
      w.str(name);
      try {
        w.value(value);
      } catch (e) {
        if (e instanceof BoundaryRefusal) e.parts.push(`.${name}`);
        throw e;
      }
    }
  });
}

function load(snapshot, key, settings, capabilities) {
  return message((w) => {
    w.u8(LOAD);
    w.blob(snapshot);
    optBlob(w, key);
    writeSettings(w, settings);
    writeCapabilities(w, capabilities);
  });
}

function replyReturn(value) {
  return message((w) => {
    w.u8(REPLY);
    w.u8(RETURN);
    w.value(value);
  });
}

function replyThrow(error) {
  return message((w) => {
    w.u8(REPLY);
    w.u8(THROW);
    writeHostError(w, error);
  });
}

function replyDefer() {
  return Buffer.from([REPLY, DEFER]);
}

function answerValue(id, value) {
  return message((w) => {
    w.u8(ANSWER);
    w.f64(id);
    w.u8(RETURN);
    w.value(value);
  });
}

function answerError(id, error) {
  return message((w) => {
    w.u8(ANSWER);
    w.f64(id);
    w.u8(THROW);
    writeHostError(w, error);
  });
}

/**
 * One command that settles the answers of `commands` (answers and batches of them, as
 * made here) in one step, in their order: a count, then each answer as `answerValue`
 * and `answerError` write it after their tag.
 */
function answers(commands) {
  let count = 0;
  const bodies = commands.map((command) => {
    const batch = command[0] === ANSWERS;
    count += batch ? command.readUInt32LE(1) : 1;
    return command.subarray(batch ? 5 : 1);
  });
  const head = Buffer.alloc(5);
  head[0] = ANSWERS;
  head.writeUInt32LE(count, 1);
  return Buffer.concat([head, ...bodies]);
}

function dump(key) {
  return message((w) => {
    w.u8(DUMP);
    optBlob(w, key);
  });
}

function readCall(r) {
  const id = r.f64();
  const capability = r.str();
  const n = r.u32();
  const args = new Array(n);
  for (let i = 0; i < n; i++) args[i] = r.value();
  return { id, capability, args };
}

function readFailure(r) {
  const failure = { kind: r.str(), name: r.str(), message: r.str(), stack: r.str(), location: undefined };
  if (r.u8() === 1) {
    failure.location = { file: r.str(), line: r.u32(), column: r.u32(), sourceLine: r.str() };
  }
  return failure;
}

/** The event `bytes` hold, as `{ type, ... }`. */
function readEvent(bytes) {
  const r = new Reader(bytes);
  switch (r.u8()) {
    case CALL:
      return { type: 'call', call: readCall(r) };
    case CONSOLE:
      return { type: 'console', level: LEVELS[r.u8()] ?? 'log', text: r.str() };
    case SUSPENDED: {
      const n = r.u32();
      const calls = new Array(n);
      for (let i = 0; i < n; i++) calls[i] = readCall(r);
      return { type: 'suspended', calls };
    }
    case COMPLETE:
      return { type: 'complete', value: r.value() };
    case FAILED:
      return { type: 'failed', failure: readFailure(r) };
    case DUMPED:
      return r.u8() === 0
        ? { type: 'dumped', bytes: Buffer.from(r.blob().buffer) }
        : { type: 'failed', failure: readFailure(r), dumpFailed: true };
    case CLOSED:
      return { type: 'closed' };
    default:
      throw new Error('kiln-sandbox: an unknown event from the engine');
  }
}

/** Whether `command` answers asynchronous calls (one or several). */
function isAnswer(command) {
  return command[0] === ANSWER || command[0] === ANSWERS;
}

/** Whether `command` is a reply to the synchronous call the guest waits in. */
function isReply(command) {
  return command[0] === REPLY;
}

module.exports = {
  isAnswer,
  isReply,
  start,
  load,
  replyReturn,
  replyThrow,
  replyDefer,
  answerValue,
  answerError,
  answers,
  dump,
  readEvent,
};
