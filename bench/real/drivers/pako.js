// pako: deflate generated text at level 6, inflate it again, and gzip it.
var input = textBytes(new Random(5), 1500);
var ROUNDS = 1;
var packed, unpacked, gz;
for (var round = 0; round < ROUNDS; round++) {
  packed = pako.deflate(input, { level: 6 });
  unpacked = pako.inflate(packed);
  gz = pako.gzip(input, { level: 9 });
}
var same = sameBytes(unpacked, input);
var h = hashBytes(packed);
emit("pako " + input.length + " " + packed.length + " " + gz.length + " " + same + " " + hex(h));
