// RegExp: exec results, flags, lastIndex, the Symbol methods, escaping.
const re = /(\d+)-(?<word>[a-z]+)/g;
const m = re.exec('xx 12-ab 34-cd');
print(m[0], m[1], m.groups.word, m.index, m.input, re.lastIndex) // expect: 12-ab 12 ab 3 xx 12-ab 34-cd 8
print(re.exec('xx 12-ab 34-cd').index, re.exec('xx 12-ab 34-cd'), re.lastIndex) // expect: 9 null 0
print(Object.getPrototypeOf(m.groups), /a/.exec('a').groups) // expect: null undefined

// the d flag: match indices
const d = /(?<y>\d{4})-(\d\d)?/d.exec('on 2024-');
print(d.indices[0], d.indices[1], d.indices[2], d.indices.groups.y) // expect: [ 3, 8 ] [ 3, 7 ] undefined [ 3, 7 ]

// flags and source
print(/x/dgimsy.flags, /x/v.flags, /x/v.unicodeSets, /x/.global) // expect: dgimsy v true false
print(String(/a\/b[/]/), new RegExp('a/b\n').source, new RegExp('').source, RegExp.prototype.source) // expect: /a\/b[/]/ a\/b\n (?:) (?:)
print(RegExp.prototype.flags, RegExp.prototype.global) // expect:  undefined
try { RegExp.prototype.global.call } catch (e) { print(e.name) } // expect: TypeError
try { Object.getOwnPropertyDescriptor(RegExp.prototype, 'global').get.call({}) } catch (e) { print(e.name) } // expect: TypeError

// construction
print(new RegExp(/x/g, 'i').flags, RegExp(re) === re, new RegExp(re) === re) // expect: i true false
try { new RegExp('(') } catch (e) { print(e.name) } // expect: SyntaxError
try { new RegExp('a', 'gg') } catch (e) { print(e.name) } // expect: SyntaxError
try { new RegExp('a', 'uv') } catch (e) { print(e.name) } // expect: SyntaxError
const fresh = () => /z/g;
const r1 = fresh(); r1.test('z');
print(r1 === fresh(), r1.lastIndex, fresh().lastIndex) // expect: false 1 0

// Unicode
print(/😀/u.exec('x😀')[0].length, /^.$/u.test('😀'), /^.$/.test('😀'), /[😀]/.exec('😀')[0].length) // expect: 2 true false 1
print(/\p{L}+/u.exec('123héllo')[0], /[\p{L}--[a-z]]/v.exec('abcÉ')[0]) // expect: héllo É
print(/(?<𝑓>x)/.exec('x').groups['𝑓']) // expect: x

// sticky
const y = /a/y;
y.lastIndex = 1;
print(y.test('ba'), y.lastIndex, y.test('ba'), y.lastIndex) // expect: true 2 false 0

// Symbol.replace with templates and functions
print('abcd'.replace(/(\w)(\w)/g, '$2$1-')) // expect: ba-dc-
print('abcd'.replace(/(?<x>\w)(\w)/g, "[$<x>|$2|$&|$`|$'|$$|$3|$0]")) // expect: [a|b|ab||cd|$|$3|$0][c|d|cd|ab||$|$3|$0]
print('a1b2'.replace(/\d/g, (d, i) => `<${d * 2}@${i}>`)) // expect: a<2@1>b<4@3>
print('aaa'.replace(/a*?/g, '-')) // expect: -a-a-a-
print('x'.replace(/(y)?x/, '[$1]')) // expect: []

// Symbol.split, search, match, matchAll
print('a, b,c,,d'.split(/,\s*/)) // expect: [ 'a', 'b', 'c', '', 'd' ]
print('a-b-c'.split(/(-)/, 4)) // expect: [ 'a', '-', 'b', '-' ]
print(''.split(/x/), ''.split(/(?:)/), 'abc'.split(/(?:)/)) // expect: [ '' ] [] [ 'a', 'b', 'c' ]
print('😀😀'.split(/(?:)/u).length, '😀😀'.split(/(?:)/).length) // expect: 2 4
print('abc'.search(/c/), 'abc'.search(/x/)) // expect: 2 -1
print('education'.match(/[aeiou]/g), 'abc'.match(/x/g)) // expect: [ 'e', 'u', 'a', 'i', 'o' ] null
print([...'a1 a2 a3'.matchAll(/a(\d)/g)].map(m => m[1] + '@' + m.index)) // expect: [ '1@0', '2@3', '3@6' ]
print(Object.prototype.toString.call('a'.matchAll(/a/g))) // expect: [object RegExp String Iterator]

// a custom exec is honoured by the Symbol methods
const custom = /x/;
custom.exec = () => ({ 0: 'hit', index: 1, length: 1 });
print(custom.test('?'), 'abc'.replace(custom, '_')) // expect: true a_

// RegExp.escape and Annex B compile
print(RegExp.escape('a.b*c'), RegExp.escape('1x'), RegExp.escape(' -'), RegExp.escape('\n')) // expect: \x61\.b\*c \x31x \x20\x2d \n
const c = /a/g;
c.lastIndex = 3;
print(c.compile('b', 'i') === c, c.source, c.flags, c.lastIndex) // expect: true b i 0
class Sub extends RegExp {}
try { new Sub('a').compile('b') } catch (e) { print(e.name) } // expect: TypeError
print(RegExp[Symbol.species] === RegExp, Object.prototype.toString.call(/x/)) // expect: true [object RegExp]

// replace with a template without `$`: the template as it is, for every match
print('a-b--c'.replace(/-/g, '+'), 'abc'.replace(/(?:)/g, '-'), 'x1y22'.replace(/(\d)+/g, '#')) // expect: a+b++c -a-b-c- x#y#
print('aaa'.replace(/a/y, 'b'), 'héllo'.replace(/l/gu, ''), 'ab'.replace(/(?<n>b)/g, '[$<n>]')) // expect: baa héo a[b]
// nothing matched: the string itself; the template is still converted first
let converted = 0;
print('abc'.replace(/x/g, { toString() { converted++; return '$&'; } }), converted) // expect: abc 1
