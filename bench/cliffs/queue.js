// A breadth-first work queue: 1e6 items through push/shift, about 1e4 in the queue.
var out = typeof print === 'function' ? print : console.log;
var q = [];
for (var i = 0; i < 10000; i++) q.push(i);
var sum = 0, n = 0;
while (q.length) {
  var v = q.shift();
  sum = (sum + v) | 0;
  if (++n < 990000) q.push((v * 31 + 7) % 1000003);
}
out(n + ' ' + sum);
