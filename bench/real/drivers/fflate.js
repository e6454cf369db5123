// fflate: deflate generated text at level 6, inflate it again, and gzip it.
var random = new Random(5);
var parts = [];
for (var i = 0; i < 1500; i++) parts.push(words(random, 12) + " " + random.int(100000) + "\n");
var text = parts.join("");
var input = new Uint8Array(text.length);
for (var k = 0; k < text.length; k++) input[k] = text.charCodeAt(k);
var ROUNDS = 1;
var packed, unpacked, gz;
for (var round = 0; round < ROUNDS; round++) {
  packed = fflate.deflateSync(input, { level: 6 });
  unpacked = fflate.inflateSync(packed);
  gz = fflate.gzipSync(input, { level: 9, mtime: 0 });
}
var same = unpacked.length === input.length;
for (var j = 0; same && j < input.length; j++) same = unpacked[j] === input[j];
var h = 0x811c9dc5;
for (var b = 0; b < packed.length; b++) h = Math.imul(h ^ packed[b], 0x01000193);
emit("fflate " + input.length + " " + packed.length + " " + gz.length + " " + same + " " + hex(h));
