// fflate: deflate generated text at level 6, inflate it again, and gzip it.
var input = textBytes(new Random(5), 1500);
var ROUNDS = 1;
var packed, unpacked, gz;
for (var round = 0; round < ROUNDS; round++) {
  packed = fflate.deflateSync(input, { level: 6 });
  unpacked = fflate.inflateSync(packed);
  gz = fflate.gzipSync(input, { level: 9, mtime: 0 });
}
var same = sameBytes(unpacked, input);
var h = hashBytes(packed);
emit("fflate " + input.length + " " + packed.length + " " + gz.length + " " + same + " " + hex(h));
