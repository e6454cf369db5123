'use strict';
// The public API: run, start/Progress, Executor and KilnError, over native sessions.
//
// A session is one execution, on node's thread (isolation 'thread') or in a worker
// process. Commands go to it as bytes; its events come back as bytes, returned by the
// in-process session or through the addon's dispatcher from a worker process. Each step
// of an execution ends with one resting event (suspended, complete, failed, dumped); a
// step may also produce console lines and synchronous host calls, which are answered
// here as they arrive.

const { load, PLATFORM } = require('./native');
const protocol = require('./protocol');
const { BoundaryRefusal } = require('./codec');

const { addon, worker: workerPath } = load();

/**
 * Live conversations with worker processes by session id, held weakly: an abandoned
 * conversation is collected, which closes its session. While a step is in flight,
 * `busy` holds it. (An abandoned in-process session is closed when its native object
 * is collected.)
 */
const conversations = new Map();
const forget = new FinalizationRegistry((id) => conversations.delete(id));
addon.listen((id, bytes) => conversations.get(id)?.deref()?.receive(bytes));

/** The stable kinds of failure. */
const KINDS = [
  'Syntax',
  'Exception',
  'OutOfFuel',
  'HeapLimit',
  'CallDepth',
  'ComputeTime',
  'HostCalls',
  'Cancelled',
  'Boundary',
  'Snapshot',
  'Stalled',
  'Host',
  'Engine',
];

/** An execution that ended without a result, or a value or snapshot that was refused. */
class KilnError extends Error {
  constructor(failure) {
    const summary =
      failure.kind === 'Exception' || failure.kind === 'Syntax'
        ? failure.message
          ? `${failure.name}: ${failure.message}`
          : failure.name
        : failure.message;
    super(summary);
    this.name = 'KilnError';
    /** one of KINDS */
    this.kind = failure.kind;
    /** the guest exception's name (`TypeError`), or the kind */
    this.guestName = failure.name;
    /** the guest exception's message, or what went wrong */
    this.guestMessage = failure.message;
    /** the guest's stack, with line:column of each frame */
    this.guestStack = failure.stack ?? summary;
    /** where the guest threw: { file, line, column, sourceLine } */
    this.location = failure.location;
  }
}

function fail(kind, message) {
  return new KilnError({ kind, name: kind, message, stack: message });
}

function refusal(e, where) {
  return fail('Boundary', `${where}: ${e.what} cannot cross to the guest (at ${e.path})`);
}

// ---- keeping node alive while a step runs -------------------------------------------

/**
 * Conversations with a step in flight in a worker process: held strongly, and they keep
 * node's loop alive. (An in-process step runs on node's thread; between its slices of
 * computation a pending `setImmediate` keeps the loop alive.)
 */
const busy = new Set();
let keepAlive;

function hold(conversation) {
  conversation.inFlight = true;
  if (conversation.local !== undefined) return;
  busy.add(conversation);
  if (keepAlive === undefined) keepAlive = setInterval(() => {}, 1 << 30);
}

function release(conversation) {
  conversation.inFlight = false;
  if (!busy.delete(conversation)) return;
  if (busy.size === 0 && keepAlive !== undefined) {
    clearInterval(keepAlive);
    keepAlive = undefined;
  }
}

// ---- options --------------------------------------------------------------------------

const LIMITS = ['fuel', 'heapBytes', 'callDepth', 'computeMs', 'hostCalls'];

function settingsOf(options) {
  const limits = {};
  const given = options.limits ?? {};
  if (typeof given !== 'object') throw new TypeError('limits must be an object');
  for (const name of Object.keys(given)) {
    if (!LIMITS.includes(name)) {
      throw new TypeError(`unknown limit ${name} (the limits are ${LIMITS.join(', ')})`);
    }
    const v = given[name];
    if (v === undefined) continue;
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new TypeError(`limits.${name} must be a whole number from 0 to 2^53, not ${v}`);
    }
    limits[name] = v;
  }
  return {
    limits,
    hardened: options.hardened === true,
    allowEval: options.allowEval === true,
    console: options.console !== undefined && options.console !== null,
    bigint: true,
    date: true,
  };
}

function filenameOf(options) {
  if (options.filename !== undefined) {
    if (typeof options.filename !== 'string' || options.filename === '') {
      throw new TypeError('filename must be a non-empty string');
    }
    return options.filename;
  }
  return options.typescript ? 'agent.ts' : 'agent.js';
}

function checkName(name, what) {
  if (typeof name !== 'string' || name === '' || name.split('.').some((part) => part === '')) {
    throw new TypeError(`${what} names must be non-empty strings (dots separate namespaces): ${String(name)}`);
  }
}

/**
 * The host functions of `run`: `{ search: fn, tools: { fetch: fn }, 'db.query': fn }`
 * becomes the names search, tools.fetch and db.query, each with its function and the
 * object it is called on.
 */
function functionsOf(capabilities) {
  const found = new Map();
  const walk = (object, prefix) => {
    for (const key of Object.keys(object)) {
      const name = prefix + key;
      const v = object[key];
      if (typeof v === 'function') {
        checkName(name, 'capability');
        found.set(name, { fn: v, self: object, async: v.constructor?.name === 'AsyncFunction' });
      } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        walk(v, `${name}.`);
      } else {
        throw new TypeError(`capability ${name} must be a function or an object of them`);
      }
    }
  };
  if (capabilities !== undefined && capabilities !== null) {
    if (typeof capabilities !== 'object') throw new TypeError('capabilities must be an object of functions');
    walk(capabilities, '');
  }
  return found;
}

/** The capability names of `start` and `Progress.load`. */
function namesOf(capabilities) {
  if (capabilities === undefined || capabilities === null) return [];
  if (!Array.isArray(capabilities)) {
    throw new TypeError(
      'start() and Progress.load() take capability names (an array of strings); ' +
        'the host answers each call with progress.resume()',
    );
  }
  for (const name of capabilities) checkName(name, 'capability');
  return capabilities.map((name) => ({ name, async: true }));
}

function inputsOf(inputs) {
  if (inputs === undefined || inputs === null) return [];
  if (typeof inputs !== 'object') throw new TypeError('inputs must be an object of values');
  return Object.keys(inputs).map((name) => {
    checkName(name, 'input');
    return [name, inputs[name]];
  });
}

function keyOf(key) {
  if (key === undefined || key === null) return undefined;
  if (typeof key === 'string') return Buffer.from(key, 'utf8');
  if (key instanceof Uint8Array) return key;
  throw new TypeError('key must be a string or a Buffer');
}

function isolationOf(options) {
  const isolation = options.isolation ?? 'thread';
  if (isolation === 'thread') return null;
  if (isolation === 'process') {
    if (workerPath === undefined) {
      throw new Error(`kiln-sandbox: the worker binary for ${PLATFORM} is missing, so isolation 'process' is unavailable`);
    }
    return workerPath;
  }
  throw new TypeError(`isolation must be 'thread' or 'process', not ${String(isolation)}`);
}

/** What the guest sees of an error a host function threw or rejected with. */
function hostErrorOf(e) {
  if (e instanceof Error) {
    const error = { name: String(e.name), message: String(e.message) };
    if (typeof e.code === 'string') error.code = e.code;
    return error;
  }
  return { name: 'Error', message: String(e) };
}

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

// ---- conversations ----------------------------------------------------------------------

/**
 * One session. `handlers.rest` receives each resting event (the end of a step);
 * `handlers.call` each synchronous host call; `handlers.console` each console line.
 *
 * In process (isolation 'thread'), the guest runs on node's thread: a command's step runs
 * inside `send`, and its events are handled before `send` returns. A command sent while
 * another is handled (a reply to a synchronous call, say) waits in `queue`, so that
 * steps never nest. A guest that computes long pauses every few milliseconds; node's
 * loop takes a turn (an abort, a host function's answer), then `proceed` continues it,
 * and answers that came meanwhile wait in `queue` until the step ends (a reply to a
 * synchronous call the guest makes meanwhile goes before them), then go as one command.
 *
 * Answers to asynchronous calls given in one turn of node's loop (host functions that
 * finish together) go together too, as one command that the guest takes in one step,
 * in the order given: however the command travels, the guest runs once after all of
 * them, not once after each.
 */
class Conversation {
  constructor(isolation, handlers) {
    this.handlers = handlers;
    this.closed = false;
    this.inFlight = false;
    /** answers given this turn of node's loop, sent together when it ends */
    this.answers = [];
    if (isolation === null) {
      this.local = new addon.LocalSession();
      localRunning++;
      this.queue = [];
      this.pumping = false;
      this.paused = false;
      return;
    }
    this.native = new addon.NativeSession(isolation);
    const id = this.native.id;
    conversations.set(id, new WeakRef(this));
    forget.register(this, id);
  }

  /** Send `command`; a failure to deliver it is the step's failure. */
  send(command) {
    if (this.closed) return;
    if (this.local !== undefined) {
      // a reply goes first: the guest waits in the call, and answers that came while
      // it computed wait until it rests
      if (protocol.isReply(command)) this.queue.unshift(command);
      else this.queue.push(command);
      this.pump();
      return;
    }
    try {
      this.native.send(command);
    } catch (e) {
      this.receiveEvent(engineFailure(e));
    }
  }

  /**
   * Sends the answer to an asynchronous call with the others given this turn of node's
   * loop, once the turn's callbacks have run.
   */
  answer(command) {
    if (this.closed) return;
    this.answers.push(command);
    if (this.answers.length === 1) setImmediate(() => this.sendAnswers());
  }

  sendAnswers() {
    const answers = this.answers;
    this.answers = [];
    this.send(answers.length === 1 ? answers[0] : protocol.answers(answers));
  }

  /** The next queued command; answers queued one after another become one. */
  nextQueued() {
    const command = this.queue.shift();
    if (!protocol.isAnswer(command)) return command;
    const answers = [command];
    while (this.queue.length > 0 && protocol.isAnswer(this.queue[0])) answers.push(this.queue.shift());
    return answers.length === 1 ? command : protocol.answers(answers);
  }

  /** Runs the queued commands' steps on this thread, one after another. */
  pump() {
    if (this.pumping || this.paused) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.closed && !this.paused) {
        let bytes;
        try {
          bytes = this.local.send(this.nextQueued());
        } catch (e) {
          this.receiveEvent(engineFailure(e));
          continue;
        }
        this.handleLocal(bytes);
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Handles what an in-process step returned: events until it rests, or a pause. */
  handleLocal(bytes) {
    for (;;) {
      if (bytes === null) {
        this.paused = true;
        setImmediate(() => this.proceed());
        return;
      }
      const event = protocol.readEvent(bytes);
      this.receiveEvent(event);
      // a console line leaves the guest where it was, waiting to go on
      if (event.type !== 'console' || this.closed) return;
      bytes = this.local.proceed();
    }
  }

  /** Continues a guest that paused, then the commands that came meanwhile. */
  proceed() {
    if (this.closed) return;
    this.paused = false;
    this.pumping = true;
    try {
      this.handleLocal(this.local.proceed());
    } finally {
      this.pumping = false;
    }
    this.pump();
  }

  /** Send a command that starts a step and resolve with the step's resting event. */
  step(command) {
    if (this.closed) return Promise.reject(new TypeError('this execution has ended'));
    return new Promise((resolve) => {
      this.handlers.rest = (event) => {
        release(this);
        resolve(event);
      };
      hold(this);
      this.send(command);
    });
  }

  receive(bytes) {
    this.receiveEvent(protocol.readEvent(bytes));
  }

  receiveEvent(event) {
    switch (event.type) {
      case 'call':
        return this.handlers.call(event.call);
      case 'console':
        return this.handlers.console?.(event.level, event.text);
      case 'closed':
        return undefined;
      default: {
        const rested = this.handlers.rest?.(event);
        if (event.type === 'complete' || (event.type === 'failed' && !event.dumpFailed)) this.close();
        return rested;
      }
    }
  }

  interrupt() {
    if (this.closed) return;
    if (this.local !== undefined) this.local.interrupt();
    else this.native.interrupt();
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.local !== undefined) {
      this.local.close();
      localRunning--;
      housekeepWhenIdle();
    } else {
      this.native.close();
      conversations.delete(this.native.id);
    }
    // no event reaches a closed conversation: a step still in flight ends here
    if (this.inFlight) {
      const message = 'the execution was cancelled while a step was running';
      this.handlers.rest?.({ type: 'failed', failure: { kind: 'Cancelled', name: 'Cancelled', message, stack: message } });
    }
  }
}

/** In-process sessions open (not closed yet). */
let localRunning = 0;

/**
 * After an in-process session ends: once node's loop has nothing else to do this turn,
 * the addon makes runtimes for the next sessions and drops ended ones (off the runs'
 * path): two when no in-process session is open, one while some are.
 */
let housekeeping;
function housekeepWhenIdle() {
  if (housekeeping !== undefined) return;
  housekeeping = setImmediate(() => {
    housekeeping = undefined;
    addon.housekeep(localRunning);
  });
  housekeeping.unref();
}

function engineFailure(e) {
  return { type: 'failed', failure: { kind: 'Engine', name: 'Engine', message: e.message, stack: e.message } };
}

function consoleHandler(sink) {
  if (sink === undefined || sink === null) return undefined;
  return (level, text) => {
    const write = sink[level] ?? sink.log;
    if (typeof write === 'function') write.call(sink, text);
  };
}

// ---- run ------------------------------------------------------------------------------

/**
 * Run `source` as an agent script (top-level await; the result is what it returns or
 * its last expression) with host functions, inputs and limits; resolves with the result.
 */
async function run(source, options = {}) {
  if (typeof source !== 'string') throw new TypeError('source must be a string');
  const settings = settingsOf(options);
  const functions = functionsOf(options.capabilities);
  const capabilities = [...functions].map(([name, f]) => ({ name, async: f.async }));
  const signal = options.signal;
  if (signal?.aborted) throw fail('Cancelled', 'the run was aborted before it started');
  let command;
  try {
    command = protocol.start(source, filenameOf(options), settings, capabilities, inputsOf(options.inputs));
  } catch (e) {
    if (e instanceof BoundaryRefusal) throw refusal(e, 'inputs');
    throw e;
  }
  const isolation = isolationOf(options);
  const answered = new Set();
  return new Promise((resolve, reject) => {
    // the host function for a call, settled into an answer once its result is known
    const answerLater = (conversation, call, result) => {
      answered.add(call.id);
      Promise.resolve(result).then(
        (value) => conversation.answer(answerValue(call, value)),
        (e) => conversation.answer(protocol.answerError(call.id, hostErrorOf(e))),
      );
    };
    const apply = (call) => {
      const f = functions.get(call.capability);
      return f.fn.apply(f.self, call.args);
    };
    const finish = (conversation, settle) => {
      signal?.removeEventListener('abort', onAbort);
      release(conversation);
      conversation.close();
      settle();
    };
    const conversation = new Conversation(isolation, {
      console: consoleHandler(options.console),
      call(call) {
        let result;
        try {
          result = apply(call);
        } catch (e) {
          return conversation.send(protocol.replyThrow(hostErrorOf(e)));
        }
        if (!isThenable(result)) return conversation.send(replyValue(call, result));
        conversation.send(protocol.replyDefer());
        answerLater(conversation, call, result);
      },
      rest(event) {
        if (event.type === 'complete') return finish(conversation, () => resolve(event.value));
        if (event.type === 'failed') return finish(conversation, () => reject(new KilnError(event.failure)));
        for (const call of event.calls) {
          if (answered.has(call.id)) continue;
          let result;
          try {
            result = apply(call);
          } catch (e) {
            result = Promise.reject(e);
          }
          answerLater(conversation, call, result);
        }
      },
    });
    const onAbort = () => {
      conversation.interrupt();
      finish(conversation, () => reject(fail('Cancelled', 'the run was aborted')));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    hold(conversation);
    conversation.send(command);
  });
}

/** The answer to an asynchronous call; a result that cannot cross is an error in the guest. */
function answerValue(call, value) {
  try {
    return protocol.answerValue(call.id, value);
  } catch (e) {
    if (!(e instanceof BoundaryRefusal)) throw e;
    return protocol.answerError(call.id, crossingError(call, e));
  }
}

function replyValue(call, value) {
  try {
    return protocol.replyReturn(value);
  } catch (e) {
    if (!(e instanceof BoundaryRefusal)) throw e;
    return protocol.replyThrow(crossingError(call, e));
  }
}

function crossingError(call, e) {
  return {
    name: 'TypeError',
    message: `${call.capability} returned ${e.what}, which cannot cross to the guest (at ${e.path})`,
  };
}

// ---- start and Progress -------------------------------------------------------------

/**
 * A conversation driven by hand (`start`, `Progress.load`), with what opening it again
 * needs (its capabilities are all answered through Progress).
 */
function drivenConversation(isolation, settings, capabilities, console) {
  const conversation = new Conversation(isolation, { console, call() {} });
  conversation.opened = { isolation, settings, capabilities, console };
  return conversation;
}

/** Snapshot ids already loaded in this process: each snapshot resumes once. */
const loadedSnapshots = new Set();

/** Where an execution driven by hand stands. */
class Progress {
  constructor(conversation, event, known) {
    this._conversation = conversation;
    this._spent = false;
    if (event.type === 'complete') {
      this.status = 'complete';
      this.value = event.value;
      this.calls = [];
    } else {
      this.status = 'suspended';
      this.value = undefined;
      // the outstanding calls: those known before this step and not answered, and new ones
      this.calls = [...known, ...event.calls];
    }
  }

  _take(what) {
    if (this.status !== 'suspended') throw new TypeError(`cannot ${what}: the execution is complete`);
    if (this._spent) throw new TypeError(`cannot ${what}: this progress was already resumed; use the Progress its resume() returned`);
  }

  _call(id) {
    const call = this.calls.find((c) => c.id === id);
    if (call === undefined) throw new TypeError(`no outstanding call has the id ${id}`);
    return call;
  }

  async _step(command, answeredId) {
    this._spent = true;
    const known = this.calls.filter((c) => c.id !== answeredId);
    const conversation = await this._live();
    const event = await conversation.step(command);
    if (event.type === 'failed') throw new KilnError(event.failure);
    return new Progress(conversation, event, known);
  }

  /**
   * The conversation to step. One that `dump` parked (its worker process given back) is
   * opened again from the dumped bytes, with the options it was first opened with.
   */
  _live() {
    if (this._parked === undefined) return Promise.resolve(this._conversation);
    this._reopening ??= (async () => {
      const { bytes, key } = this._parked;
      const { isolation, settings, capabilities, console } = this._conversation.opened;
      const conversation = drivenConversation(isolation, settings, capabilities, console);
      const event = await conversation.step(protocol.load(bytes, key, settings, capabilities));
      this._reopening = undefined;
      if (event.type === 'failed') throw new KilnError(event.failure);
      this._conversation = conversation;
      this._parked = undefined;
      return conversation;
    })();
    return this._reopening;
  }

  /** Answer the outstanding call `id` with `value` and continue. */
  resume(id, value) {
    this._take('resume');
    const call = this._call(id);
    let command;
    try {
      command = protocol.answerValue(id, value);
    } catch (e) {
      if (e instanceof BoundaryRefusal) return Promise.reject(refusal(e, `the answer to ${call.capability}`));
      throw e;
    }
    return this._step(command, id);
  }

  /** Answer the outstanding call `id` with an error the guest can catch, and continue. */
  resumeError(id, error) {
    this._take('resume');
    this._call(id);
    return this._step(protocol.answerError(id, hostErrorOf(error)), id);
  }

  /** End the execution and free its runtime. */
  cancel() {
    this._spent = true;
    this._parked = undefined;
    this._conversation.close();
  }

  /**
   * The suspended execution as bytes, to continue later (also in another process) with
   * Progress.load; authenticated with `key` when given.
   */
  async dump(options = {}) {
    this._take('dump');
    const key = keyOf(options.key);
    const conversation = await this._live();
    const event = await conversation.step(protocol.dump(key));
    if (event.type === 'failed') throw new KilnError(event.failure);
    // A worker process is dear, and a dumped execution is usually dropped (it goes on
    // from its bytes, elsewhere or later): it gives its worker back now rather than when
    // the collector finds it, and is loaded again from the bytes if it goes on here.
    if (conversation.native !== undefined) {
      this._parked = { bytes: event.bytes, key };
      conversation.close();
    }
    return event.bytes;
  }

  /** Continue an execution from `bytes` that Progress#dump wrote. Each snapshot resumes once. */
  static async load(bytes, options = {}) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('a snapshot is a Buffer');
    const key = keyOf(options.key);
    let id;
    try {
      id = addon.snapshotId(bytes, key);
    } catch (e) {
      throw fail('Snapshot', e.message);
    }
    const seen = options.snapshots ?? loadedSnapshots;
    if (await seen.has(id)) {
      throw fail('Snapshot', `the snapshot ${id} was already resumed; a snapshot resumes once`);
    }
    await seen.add(id);
    const settings = settingsOf(options);
    const capabilities = namesOf(options.capabilities);
    const conversation = drivenConversation(isolationOf(options), settings, capabilities, consoleHandler(options.console));
    const event = await conversation.step(protocol.load(bytes, key, settings, capabilities));
    if (event.type === 'failed') throw new KilnError(event.failure);
    return new Progress(conversation, event, []);
  }
}

/**
 * Start `source` as an agent script whose capabilities the host answers by hand;
 * resolves with the first Progress.
 */
async function start(source, options = {}) {
  if (typeof source !== 'string') throw new TypeError('source must be a string');
  const settings = settingsOf(options);
  const capabilities = namesOf(options.capabilities);
  let command;
  try {
    command = protocol.start(source, filenameOf(options), settings, capabilities, inputsOf(options.inputs));
  } catch (e) {
    if (e instanceof BoundaryRefusal) throw refusal(e, 'inputs');
    throw e;
  }
  const conversation = drivenConversation(isolationOf(options), settings, capabilities, consoleHandler(options.console));
  const event = await conversation.step(command);
  if (event.type === 'failed') throw new KilnError(event.failure);
  return new Progress(conversation, event, []);
}

// ---- Executor -------------------------------------------------------------------------

/**
 * Runs model-written code with tools as `codemode.*` and never throws: the codemode
 * `Executor` shape. The code is an agent script, or an async function expression
 * (`async () => { ... }`) that is called.
 */
class Executor {
  constructor(options = {}) {
    this.options = options;
    this.namespace = options.namespace ?? 'codemode';
  }

  async execute(code, fns = {}) {
    const logs = [];
    const sink = {
      log: (text) => logs.push(text),
      info: (text) => logs.push(text),
      debug: (text) => logs.push(text),
      warn: (text) => logs.push(`[warn] ${text}`),
      error: (text) => logs.push(`[error] ${text}`),
    };
    const source = /^\s*async\b/.test(code) ? `return await (${code})()` : code;
    try {
      const result = await run(source, {
        ...this.options,
        capabilities: { [this.namespace]: fns },
        console: sink,
      });
      return { result, logs };
    } catch (e) {
      const error = e instanceof KilnError ? e.message : String(e?.message ?? e);
      return { result: undefined, error, kind: e instanceof KilnError ? e.kind : 'Host', logs };
    }
  }
}

module.exports = { run, start, Progress, Executor, KilnError, KINDS };
