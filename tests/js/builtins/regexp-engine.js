// The regular-expression engine: semantics the spec pins down exactly.

// duplicate named groups in different alternatives (ES2025): the participating one wins
const dup = /(?<year>\d{4})-\d\d|\d\d-(?<year>\d{4})/;
print(dup.exec('2024-05').groups.year, dup.exec('05-2023').groups.year) // expect: 2024 2023
print('12-1999'.replace(dup, '$<year>'), /(?:(?<x>a)|(?<x>b))\k<x>/.test('bb')) // expect: 1999 true

// modifiers (ES2025)
print(/(?i:ab)c/.test('ABc'), /(?i:ab)c/.test('ABC'), /a(?-i:b)/i.test('Ab'), /a(?-i:b)/i.test('AB')) // expect: true false true false
print(/(?s:.)./.test('\n\n'), /(?m:^b)/.test('a\nb')) // expect: false true

// quantified groups: captures reset each iteration, an empty iteration ends the loop
print(JSON.stringify(/(z)((a+)?(b+)?(c))*/.exec('zaacbbbcac'))) // expect: ["zaacbbbcac","z","ac","a",null,"c"]
print(JSON.stringify(/(a*)*/.exec('b')), JSON.stringify(/(?:a|())*b/.exec('aab'))) // expect: ["",null] ["aab",null]

// lookbehind reads right to left, backreferences included
print(JSON.stringify(/(?<=(\d+)(\d+))$/.exec('1053')), /(?<=\1(a))b/.exec('aab')[0]) // expect: ["","1","053"] b
print('$10 20'.match(/(?<!\$)\b\d+/)[0]) // expect: 20

// case folding: u uses simple case folding, legacy mode uppercases one code unit
print(/\u212a/i.test('k'), /\u212a/iu.test('k'), /\w/iu.test('\u017f'), /\W/iu.test('\u017f')) // expect: false true true false
print(/[^a]/i.test('A'), /\u00df/i.test('SS'), /[\u{10400}]/ui.test('\u{10428}')) // expect: false false true

// Unicode mode reads surrogate pairs as one character
print(/^.$/u.test('\u{1F600}'), /^.$/.test('\u{1F600}'), /\udf06/u.test('\u{1d306}'), /\udf06/.test('\u{1d306}')) // expect: true false false true

// v flag: set operations and properties of strings
print('abcD'.match(/[\p{L}--[a-z]]/v)[0], 'aebcd'.match(/[[a-z]&&[^aeiou]]+/v)[0]) // expect: D bcd
print(/^\p{RGI_Emoji}$/v.test('\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'), /^[\q{abc|a}]$/v.test('abc')) // expect: true true

// quantifier bounds up to 2^53 - 1
print(/x{9007199254740991}/.test('x'), /(?:){9007199254740991}/.test('')) // expect: false true

// [^\W] under /ui: no member of \W folds to s, so the negated class matches U+017F
print(/[^\W]/iu.test('\u017f'), /[^\W]/iu.test('!')) // expect: true false

// Annex B syntax without u (\u{2} is u repeated twice)
print(/^\u{2}$/.test('uu')) // expect: true
print(/\c1/.test('\\c1'), /[\c1]/.test('\u0011'), /a{/.test('a{'), /]/.test(']'), /\8/.test('8')) // expect: true true true true true

// early errors are SyntaxErrors
for (const [p, f] of [['(?<a>x)(?<a>y)', ''], ['a{2,1}', ''], ['\\c', 'u'], ['[a-z&&b]', 'v'], ['(?ii:a)', '']]) {
  try { new RegExp(p, f); print('no error'); } catch (e) { print(e.name); }
}
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
