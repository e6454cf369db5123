// The ES module entry point: the same objects as the CommonJS one (one copy of the state).
import sandbox from './index.js';

export const { run, start, Progress, Executor, KilnError, KINDS } = sandbox;
