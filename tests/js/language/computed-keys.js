// Strings made at run time become property keys: a string whose text is already a
// key is read as that key, again and again, and stays the string it was.
var table = { alpha: 1, "&": "&amp;", "<": "&lt;" };
var source = "xx alpha yy";
var token = source.slice(3, 8) + "";
var hits = 0;
for (var i = 0; i < 3; i++) hits += table[token];
print(token, token.length, hits); // expect: alpha 5 3
print(token + "-" + token.toUpperCase(), JSON.stringify({ [token]: token })); // expect: alpha-ALPHA {"alpha":"alpha"}
var made = ["al", "pha"].join("");
var other = {};
other[made] = "set";
print(other.alpha, Object.keys(other)[0] === token, made.charAt(4), made.indexOf("ph")); // expect: set true a 2
print("a<b & c".replace(/[&<]/g, function (c) { return table[c]; })); // expect: a&lt;b &amp; c
var chars = [];
for (var c of "a<&") chars.push(table[c] === undefined ? c : table[c]);
print(chars.join("|"), "é"[0] === "\u00e9", "€x".slice(0, 1).charCodeAt(0)); // expect: a|&lt;|&amp; true 8364
