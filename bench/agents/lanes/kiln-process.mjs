// Kiln through its Node package with `isolation: 'process'`: the guest runs in a child
// process and every value crosses a process boundary. Otherwise as lanes/kiln.mjs.

import { kilnLane } from "./kiln.mjs";

const lane = kilnLane("kiln-process", "process");
export const { name, setup, runScript, takeStats, teardown } = lane;
