// An object used as a hash map: 1e5 string keys added, read, counted with for-in,
// Object.keys and some deleted.
var out = typeof print === 'function' ? print : console.log;
var map = {};
for (var i = 0; i < 100000; i++) map['key' + (i * 7919 % 100003)] = i;
var sum = 0;
for (var r = 0; r < 3; r++) for (var i = 0; i < 100000; i++) sum = (sum + (map['key' + (i * 7919 % 100003)] | 0)) | 0;
var count = 0;
for (var k in map) count++;
for (var i = 0; i < 100000; i += 3) delete map['key' + (i * 7919 % 100003)];
var keys = Object.keys(map);
out(sum + ' ' + count + ' ' + keys.length);
