// String constructor, statics and String.prototype methods, with UTF-16 edge cases.
const show = (v) => JSON.stringify(v);

print(String(123), String(Symbol("s")), String(null), typeof new String("x")); // expect: 123 Symbol(s) null object
try { "" + Symbol(); } catch (e) { print(e instanceof TypeError); } // expect: true
print(new String("abc").length, Object.keys(new String("ab")).join()); // expect: 3 0,1
print(String.fromCharCode(72, 105, 0x10041), String.fromCodePoint(0x1F600).length); // expect: HiA 2
try { String.fromCodePoint(-1); } catch (e) { print(e instanceof RangeError); } // expect: true
print(String.raw`a\n${1}b`, String.raw({ raw: ["x", "y", "z"] }, 1)); // expect: a\n1b x1yz

// indexing
const s = "a𝒳b";
print(s.length, s.at(-1), s.charAt(1) === "\ud835", s.charCodeAt(1), s.codePointAt(1), s.codePointAt(2)); // expect: 4 b true 55349 119987 56499
print(s.charAt(10) === "", isNaN(s.charCodeAt(-1)), s.codePointAt(4)); // expect: true true undefined
print(show([...s]), show([..."\ud800x"].map((c) => c.length))); // expect: ["a","𝒳","b"] [1,1]

// searching
print("hello".indexOf("l"), "hello".indexOf("l", 3), "hello".lastIndexOf("l"), "hello".indexOf("")); // expect: 2 3 3 0
print("hello".indexOf("", 10), "hello".lastIndexOf("", 2), "ab".lastIndexOf("b", -5)); // expect: 5 2 -1
print("abc".includes("bc"), "abc".startsWith("b", 1), "abc".endsWith("a", 1), "abc".endsWith("")); // expect: true true true true
try { "a".startsWith(/a/); } catch (e) { print(e instanceof TypeError); } // expect: true

// slicing
print("abcdef".slice(1, -1), "abcdef".slice(-2), "abcdef".substring(4, 1), "abcdef".substr(-3, 2)); // expect: bcde ef bcd de
print("abc".slice(2, 1) === "", "abc".substring(NaN, 2), "abc".substr(1)); // expect: true ab bc

// padding, repeating, trimming
print("5".padStart(3, "0"), "abc".padEnd(6, "12"), "abc".padStart(2), "x".padEnd(3) + "|"); // expect: 005 abc121 abc x  |
print("ab".repeat(3), "".repeat(2 ** 40) === ""); // expect: ababab true
try { "a".repeat(-1); } catch (e) { print(e.name); } // expect: RangeError
try { "ab".repeat(2 ** 30); } catch (e) { print(e.name, e.message); } // expect: RangeError Invalid string length
try { "a".padStart(2 ** 31); } catch (e) { print(e.name); } // expect: RangeError
print("[" + " \t\n\u00a0\ufeffx\u2028 ".trim() + "]", "[" + "  x ".trimStart() + "]", "[" + "  x ".trimEnd() + "]"); // expect: [x] [x ] [  x]
print(String.prototype.trimLeft === String.prototype.trimStart); // expect: true

// case mapping
print("Hello Wörld".toUpperCase(), "ΌΣΟΣ".toLowerCase(), "straße".toUpperCase(), "İ".toLowerCase().length); // expect: HELLO WÖRLD όσος STRASSE 2
print("a\ud800b".toUpperCase().charCodeAt(1)); // expect: 55296

// concat, split
print("a".concat(1, null, [2, 3]), show("a,b,,c".split(",")), show("abc".split(""))); // expect: a1null2,3 ["a","b","","c"] ["a","b","c"]
print(show("a,b,c".split(",", 2)), show("abc".split()), show("".split("x")), show("".split(""))); // expect: ["a","b"] ["abc"] [""] []
print(show("𝒳".split(""))); // expect: ["\ud835","\udcb3"]

// replace, replaceAll with GetSubstitution
print("abc".replace("b", "[$&|$`|$'|$$]"), "aaa".replace("a", "b"), "aaa".replaceAll("a", "b")); // expect: a[b|a|c|$]c baa bbb
print("abc".replace("b", (m, i, str) => m.toUpperCase() + i + str), "x".replace("", "_")); // expect: aB1abcc _x
print("aXbX".replaceAll("X", (m, i) => i), "abc".replace("b", "$1$<n>")); // expect: a1b3 a$1$<n>c
print("".replaceAll("", "-"), "ab".replaceAll("", "-")); // expect: - -a-b-

// delegation to Symbol.replace / Symbol.split / Symbol.search / Symbol.match
const custom = {
  [Symbol.replace]: (str, rep) => `replace(${str},${rep})`,
  [Symbol.split]: (str, lim) => `split(${str},${lim})`,
  [Symbol.search]: (str) => `search(${str})`,
  [Symbol.match]: (str) => `match(${str})`,
};
print("s".replace(custom, "r"), "s".split(custom, 2), "s".search(custom), "s".match(custom)); // expect: replace(s,r) split(s,2) search(s) match(s)
const notGlobal = { [Symbol.match]: true, flags: "i", [Symbol.replace]() { return "x"; } };
try { "a".replaceAll(notGlobal, ""); } catch (e) { print(e instanceof TypeError); } // expect: true

// well-formedness
print("a\ud800".isWellFormed(), "a𝒳".isWellFormed(), "a\ud800b".toWellFormed().charCodeAt(1)); // expect: false true 65533

// misc
print("a".localeCompare("b"), "b".localeCompare("a"), "a".localeCompare("a")); // expect: -1 1 0
print("abc".normalize("NFD"), (() => { try { "a".normalize("x"); } catch (e) { return e.name; } })()); // expect: abc RangeError
print("x".anchor('a"b'), "x".bold(), "x".link("u")); // expect: <a name="a&quot;b">x</a> <b>x</b> <a href="u">x</a>
try { String.prototype.trim.call(null); } catch (e) { print(e instanceof TypeError); } // expect: true
try { String.prototype.toString.call({}); } catch (e) { print(e instanceof TypeError); } // expect: true
print(Object.prototype.toString.call("".matchAll ? ""[Symbol.iterator]() : 0)); // expect: [object String Iterator]
print(String.prototype.padStart.length, String.prototype.replace.length, String.fromCharCode.length); // expect: 1 2 1

// normalize (lone surrogates kept) and localeCompare by canonical equivalence
print("\u00e9".normalize("NFD").length, "e\u0301".normalize().length, "\ufb01".normalize("NFKC")); // expect: 2 1 fi
print("a\ud800\u0301".normalize("NFC") === "a\ud800\u0301"); // expect: true
print("\u00e9".localeCompare("e\u0301"), "a".localeCompare("b")); // expect: 0 -1
var sw = new String("str"); sw[4] = 1; sw[1] = "x";
print(sw[4], sw[1], sw.length, Object.keys(sw).join()); // expect: 1 t 3 0,1,2,4
