// Each realm has its own global object and global lexical bindings; global
// variable caches of one realm's code never read another's.
var shared = "main";
let lexical = "main lexical";
const other = createRealm();
other.evalScript("var shared = 'other'; let lexical = 'other lexical';");
other.evalScript("function readShared() { return shared; } function readLexical() { return lexical; }");
function readShared() { return shared; }
function readLexical() { return lexical; }
for (let i = 0; i < 3; i++) {
  print(readShared(), other.readShared(), readLexical(), other.readLexical());
}
// expect: main other main lexical other lexical
// expect: main other main lexical other lexical
// expect: main other main lexical other lexical

// The same source text loaded in both realms.
const source = "(function () { shared = shared + '!'; return shared; })";
const inMain = (0, eval)(source);
const inOther = other.evalScript(source);
print(inMain(), inOther(), inMain(), inOther()); // expect: main! other! main!! other!!
print(shared, other.shared); // expect: main!! other!!

// A global declared in one realm is not visible in the other.
other.evalScript("var onlyOther = 1;");
print(typeof onlyOther, other.onlyOther); // expect: undefined 1
try {
  other.evalScript("onlyMain");
} catch (e) {
  print(e.constructor === other.ReferenceError); // expect: true
}
