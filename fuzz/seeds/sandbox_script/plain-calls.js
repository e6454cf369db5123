function who() { return this === globalThis ? 'global' : typeof this; }
function strictWho() { 'use strict'; return this === undefined ? 'undefined' : typeof this; }
var o = { who: who };
var out = [who(), (who)(), (0, who)(), o.who(), (o.who)(), (0, o.who)(), strictWho(), who?.(),
  eval('typeof out'), (0, eval)('1 + 1'), (eval)('typeof who')];
with ({ who: who }) out.push(who());
var f = who; out.push(f(), who.call(1), `${who`x`}`);
try { notDefined(); } catch (e) { out.push(e.name); }
try { out(); } catch (e) { out.push(e.name); }
out;
