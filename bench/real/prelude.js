// The helpers every real-program driver shares, put first in each generated script:
// output, a deterministic pseudo-random generator, inputs built from it, and a checksum.
// Plain ES5 so that every engine that can run the library can run the driver.

var emit = typeof print === "function" ? print : function (line) { console.log(line); };

// A 32-bit generator (mulberry32): the same sequence on every engine for a given seed.
function Random(seed) {
  this.state = seed >>> 0;
}
Random.prototype.next = function () {
  var t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
Random.prototype.int = function (n) {
  return Math.floor(this.next() * n);
};
Random.prototype.pick = function (list) {
  return list[this.int(list.length)];
};

var WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor " +
  "incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud " +
  "exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure " +
  "in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint " +
  "occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est " +
  "kiln engine parser token value object array string number render template schema").split(" ");

function words(random, count) {
  var out = [];
  for (var i = 0; i < count; i++) out.push(random.pick(WORDS));
  return out.join(" ");
}

// A Markdown document of `blocks` blocks: headings, paragraphs with inline markup,
// lists, block quotes, fenced code and tables.
function markdownDocument(random, blocks) {
  var out = [];
  function inline() {
    var parts = [];
    var n = 8 + random.int(30);
    for (var i = 0; i < n; i++) {
      var w = random.pick(WORDS);
      var k = random.int(20);
      if (k === 0) w = "**" + w + "**";
      else if (k === 1) w = "_" + w + "_";
      else if (k === 2) w = "`" + w + "()`";
      else if (k === 3) w = "[" + w + "](https://example.com/" + w + "?q=" + i + ")";
      else if (k === 4) w = w + " & <" + w + ">";
      parts.push(w);
    }
    return parts.join(" ");
  }
  for (var b = 0; b < blocks; b++) {
    switch (random.int(7)) {
      case 0:
        out.push(new Array(2 + random.int(3)).join("#") + " " + words(random, 3 + random.int(5)));
        break;
      case 1:
        var items = 2 + random.int(6);
        for (var i = 0; i < items; i++) out.push((random.int(2) ? "- " : (i + 1) + ". ") + inline());
        break;
      case 2:
        out.push("> " + inline() + "\n> " + inline());
        break;
      case 3:
        out.push("```js\nfunction " + random.pick(WORDS) + "(a, b) {\n  return a < b ? a : b;\n}\n```");
        break;
      case 4:
        out.push("| a | b | c |\n|---|:-:|--:|");
        for (var r = 0; r < 3 + random.int(5); r++) {
          out.push("| " + words(random, 2) + " | " + random.int(1000) + " | " + inline().slice(0, 30) + " |");
        }
        break;
      default:
        out.push(inline() + "\n" + inline());
    }
    out.push("");
  }
  return out.join("\n");
}

// FNV-1a over UTF-16 code units, continued from `h` when given.
function hash(text, h) {
  h = h === undefined ? 0x811c9dc5 : h;
  for (var i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hex(n) {
  return ("0000000" + (n >>> 0).toString(16)).slice(-8);
}

// A summary of a syntax tree: how many nodes of each type (any object with a string
// `type`), in sorted order. Location objects are skipped.
function nodeCounts(tree) {
  var counts = {};
  var stack = [tree];
  while (stack.length) {
    var node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (typeof node.type === "string") counts[node.type] = (counts[node.type] || 0) + 1;
    for (var key in node) {
      if (key === "loc" || key === "range" || key === "extra") continue;
      var value = node[key];
      if (value !== null && typeof value === "object") stack.push(value);
    }
  }
  return Object.keys(counts).sort().map(function (k) { return k + ":" + counts[k]; }).join(",");
}

// Orders for the template engines: a customer, 1-8 lines with prices, an optional note.
function generateOrders(random, count) {
  var out = [];
  for (var i = 0; i < count; i++) {
    var lines = [];
    for (var j = 0; j < 1 + random.int(8); j++) {
      lines.push({ sku: "SKU-" + random.int(10000), title: words(random, 3), qty: 1 + random.int(5), price: random.int(10000) / 100 });
    }
    out.push({ id: i, customer: { name: words(random, 2), vip: random.int(4) === 0 }, lines: lines, note: random.int(3) ? "" : words(random, 6) + " <b>&</b>" });
  }
  return out;
}

// A user record for the schema validators, invalid now and then; with `roles`, it
// also has a role picked from them.
function userDocument(random, id, roles) {
  var doc = {
    id: random.int(20) === 0 ? -1 : id,
    name: words(random, 1 + random.int(3)),
    email: random.pick(WORDS) + "@" + random.pick(WORDS) + (random.int(10) ? ".com" : ".net"),
    age: random.int(170),
    tags: [random.pick(WORDS), random.pick(WORDS)],
    address: { street: words(random, 2), zip: String(10000 + random.int(95000)), country: random.pick(["DE", "FR", "US", "UK"]) }
  };
  if (roles) doc.role = random.pick(roles);
  doc.scores = [random.int(10), random.int(10)];
  if (random.int(30) === 0) doc.unexpected = true;
  return doc;
}

// `count` lines of words and a copy with `edits` lines deleted, inserted or changed.
function editedText(random, count, edits) {
  var lines = [];
  for (var i = 0; i < count; i++) lines.push(words(random, 4 + random.int(10)));
  var edited = lines.slice();
  for (var e = 0; e < edits; e++) {
    var at = random.int(edited.length);
    var kind = random.int(3);
    if (kind === 0) edited.splice(at, 1);
    else if (kind === 1) edited.splice(at, 0, words(random, 6));
    else edited[at] = edited[at].replace(/[aeiou]/, "#");
  }
  return { lines: lines, edited: edited };
}

// `count` lines of generated text as ASCII bytes, for the compressors.
function textBytes(random, count) {
  var parts = [];
  for (var i = 0; i < count; i++) parts.push(words(random, 12) + " " + random.int(100000) + "\n");
  var text = parts.join("");
  var bytes = new Uint8Array(text.length);
  for (var k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return bytes;
}

// FNV-1a over bytes, and whether two byte arrays are equal.
function hashBytes(bytes) {
  var h = 0x811c9dc5;
  for (var i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}
function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
