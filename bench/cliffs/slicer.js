// A markdown-style lexer that cuts each token off the front of its input with
// substring, testing anchored regexes at the start (as marked does), over 400 KB.
var out = typeof print === 'function' ? print : console.log;
var para = '# Title\n\nSome *emphasis* and `code` and a [link](http://x.y/z) here.\n\n- item one\n- item two\n\n';
var src = para.repeat(4000);
var rules = [/^#+ [^\n]*\n/, /^\n+/, /^- [^\n]*\n/, /^`[^`]*`/, /^\*[^*]+\*/, /^\[[^\]]*\]\([^)]*\)/, /^[^\n*`\[]+/, /^./];
var tokens = 0, chars = 0;
while (src.length) {
  for (var r = 0; r < rules.length; r++) {
    var m = rules[r].exec(src);
    if (m) { src = src.substring(m[0].length); tokens++; chars += m[0].length; break; }
  }
}
out(tokens + ' ' + chars);
